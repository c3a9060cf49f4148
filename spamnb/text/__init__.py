"""Text: a decoded message to the list of tokens the model counts.

In:  raw message bytes and `TokenizerOptions`.
Out: token lists (tokens.message_tokens, in the core: core/src/text/, with
     Chinese folded and segmented by jieba-rs), stop words (stopwords) and
     hand-made keyword lists (keywords) read as the tokenizer reads.

Never imports: spamnb.model, spamnb.learning, spamnb.app; nor numpy, click
or rich.  May import spamnb.mail, spamnb._core and the foundation modules.

This file imports nothing: the fast path pays only for the modules it uses.
"""
