"""Mail: raw bytes from a mail source to a decoded message.

In:  paths (directory trees, Maildirs, mbox files, single files, stdin) and
     raw message bytes.
Out: `RawMessage`s with their origin (sources), a message's identity
     (digest).  Decoding a message (MIME, transfer encodings, charsets,
     HTML, addresses) is the core's: core/src/mail/.

Never imports: spamnb.text, spamnb.model, spamnb.learning, spamnb.app; nor
numpy, click or rich.  Only the foundation modules (spamnb.errors, .files,
.record) and the standard library.

This file imports nothing: the fast path pays only for the modules it uses.
"""
