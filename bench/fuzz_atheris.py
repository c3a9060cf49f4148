"""Optional coverage-guided fuzzing of the decoder and tokenizer with atheris.

    pip install atheris
    python bench/fuzz_atheris.py -atheris_runs=1000000

Any exception is a finding: decode_message and message_tokens must accept
every byte string.  `make fuzz` (hypothesis, structured MIME) is the routine
run; this one explores byte-level paths hypothesis does not steer toward.
"""

import sys

import atheris

with atheris.instrument_imports():
    from spamnb.mail.message import decode_message
    from spamnb.text.tokens import TokenizerOptions, message_tokens

OPTIONS = TokenizerOptions()


def one_input(data: bytes) -> None:
    tokens = message_tokens(decode_message(data), OPTIONS)
    assert all(0 < len(token) <= 600 for token in tokens)


if __name__ == "__main__":
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
