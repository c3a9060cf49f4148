"""Text: a decoded message to the list of tokens the model counts.

In:  `DecodedMessage` (spamnb.mail.message) and `TokenizerOptions`.
Out: token lists (tokens.message_tokens), with Chinese folded (variants)
     and segmented (chinese over jiebaload and prefixdict), stop words
     (stopwords) and hand-made keyword lists (keywords) read as the
     tokenizer reads.

Never imports: spamnb.model, spamnb.learning, spamnb.app; nor numpy, click
or rich.  May import spamnb.mail and the foundation modules.  jieba and
opencc are imported only when Chinese text appears.

This file imports nothing: the fast path pays only for the modules it uses.
"""
