"""Optional fuzzing of the decoder and tokenizer with atheris.

    pip install atheris
    python bench/fuzz_atheris.py -atheris_runs=1000000

Any exception is a finding: message_tokens (decoding and tokenizing, both in
the Rust core since the port) must accept every byte string.  `make fuzz`
(hypothesis, structured MIME) is the routine run; this one explores
byte-level paths hypothesis does not steer toward.  atheris instruments
Python only: the core is not coverage-guided here (cargo fuzz would be), so
this is a random byte fuzzer of the core through its Python entry point.
"""

import sys

from spamnb.text.tokens import TokenizerOptions, message_tokens

OPTIONS = TokenizerOptions()


def one_input(data: bytes) -> None:
    tokens = message_tokens(data, OPTIONS)
    assert all(0 < len(token) <= 600 for token in tokens)


if __name__ == "__main__":
    if any(arg in ("-h", "--help") for arg in sys.argv[1:]):
        print(__doc__)
        sys.exit(0)
    try:
        import atheris
    except ImportError:
        sys.exit("atheris is not installed: pip install atheris")
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
