"""scikit-learn's MultinomialNB as a plain script: the library peer of bench/perf.py.

It reads and tokenizes mail as bench/compare.py's sklearn runner does
(Subject + From + the text/plain, else tag-stripped text/html body from the
email package; jieba words for Han runs, CountVectorizer's default token
pattern elsewhere), and keeps the fitted vectorizer and classifier in a
pickle, as such a script would:

    .venv/bin/python bench/sklearn_mnb.py train --spam-list FILE --ham-list FILE --model M.pickle
    .venv/bin/python bench/sklearn_mnb.py classify --model M.pickle [--list FILE] [MESSAGE ...]

The lists hold one message path a line.  classify prints "PATH<TAB>P(spam)".
The reading is bench/sklearn_text.py's, as compare.py's runner uses it; that
module needs only the standard library, so a cold run pays only for what
the script itself needs.
"""

from __future__ import annotations

import argparse
import pickle
import sys

from sklearn_text import message_text, tokenize

def read_list(path: str) -> list[str]:
    with open(path) as lines:
        return [line.rstrip("\n") for line in lines if line.strip()]


def read_texts(paths: list[str]) -> list[str]:
    texts = []
    for path in paths:
        with open(path, "rb") as source:
            texts.append(message_text(source.read()))
    return texts


def train(spam: list[str], ham: list[str], model: str) -> None:
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB

    vectorizer = CountVectorizer(tokenizer=tokenize, token_pattern=None, lowercase=True)
    classifier = MultinomialNB()
    classifier.fit(vectorizer.fit_transform(read_texts(spam + ham)), [1] * len(spam) + [0] * len(ham))
    with open(model, "wb") as out:
        pickle.dump((vectorizer, classifier), out, protocol=pickle.HIGHEST_PROTOCOL)


def classify(model: str, paths: list[str]) -> None:
    with open(model, "rb") as source:
        vectorizer, classifier = pickle.load(source)
    spam_column = list(classifier.classes_).index(1)
    probabilities = classifier.predict_proba(vectorizer.transform(read_texts(paths)))[:, spam_column]
    sys.stdout.write("".join(f"{path}\t{p:.6f}\n" for path, p in zip(paths, probabilities)))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    learn = commands.add_parser("train")
    learn.add_argument("--spam-list", required=True)
    learn.add_argument("--ham-list", required=True)
    learn.add_argument("--model", required=True)
    score = commands.add_parser("classify")
    score.add_argument("--model", required=True)
    score.add_argument("--list")
    score.add_argument("paths", nargs="*")
    arguments = parser.parse_args(argv)
    if arguments.command == "train":
        train(read_list(arguments.spam_list), read_list(arguments.ham_list), arguments.model)
    else:
        classify(arguments.model, (read_list(arguments.list) if arguments.list else []) + arguments.paths)


if __name__ == "__main__":
    main()
