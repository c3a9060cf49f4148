"""scikit-learn's MultinomialNB as a plain library script would use it, on
bench/sklearn_text.py's reading of mail (Subject + From + the text body;
jieba words for Han runs, CountVectorizer's default token pattern
elsewhere).

split:  CountVectorizer + MultinomialNB().fit on the training messages.
online: HashingVectorizer(alternate_sign=False, norm=None: raw counts, 2**20
        features) + MultinomialNB().partial_fit one message at a time,
        after predicting it; before the first partial_fit nothing can be
        predicted and the message is unscored.

The headline score is predict_proba[:, 1], as a plain script would use it
(it saturates at exactly 0 and 1, so it ties); the verdict is predict()
(0.5, no unsure).  The untied joint log-probability difference is kept as
an alternative score.
"""

from __future__ import annotations

import logging
import time
import warnings

from sklearn_text import message_text, tokenize
from toolkit import OnlineJob, Outcome, Skip, SplitJob, timed

LOG_ODDS = "the joint log-probability difference"


def versions() -> tuple[str, str]:
    """(scikit-learn's version, jieba's)."""
    try:
        import jieba
        import sklearn
    except ImportError as error:
        raise Skip(f"scikit-learn or jieba is not installed ({error})") from None
    return sklearn.__version__, jieba.__version__


def version() -> str:
    return "scikit-learn {}, jieba {}".format(*versions())


def start_jieba() -> None:
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()


def text(item) -> str:
    return message_text(item.path.read_bytes())


def log_odds(classifier, features):
    joint = classifier.predict_joint_log_proba(features)
    spam_column = list(classifier.classes_).index(1)
    return joint[:, spam_column] - joint[:, 1 - spam_column]


def split(job: SplitJob) -> Outcome:
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB

    start_jieba()
    vectorizer = CountVectorizer(tokenizer=tokenize, token_pattern=None, lowercase=True)
    classifier = MultinomialNB()

    def train():
        classifier.fit(vectorizer.fit_transform([text(item) for item in job.train]),
                       [item.label for item in job.train])

    def classify():
        features = vectorizer.transform([text(item) for item in job.test])
        spam_column = list(classifier.classes_).index(1)
        return classifier.predict_proba(features)[:, spam_column], log_odds(classifier, features)

    _, train_seconds = timed(train)
    (probabilities, differences), classify_seconds = timed(classify)
    return outcome([float(p) for p in probabilities], [float(d) for d in differences],
                   {"train": train_seconds, "classify": classify_seconds})


def online(job: OnlineJob) -> Outcome:
    from sklearn.feature_extraction.text import HashingVectorizer
    from sklearn.naive_bayes import MultinomialNB

    start_jieba()
    vectorizer = HashingVectorizer(tokenizer=tokenize, token_pattern=None, lowercase=True,
                                   alternate_sign=False, norm=None)
    classifier = MultinomialNB()
    probabilities, differences = [], []
    fitted = False
    started = time.perf_counter()
    for number, item in enumerate(job.stream, 1):
        features = vectorizer.transform([text(item)])
        if fitted:
            with warnings.catch_warnings():  # one class seen so far: log(0) priors
                warnings.simplefilter("ignore", RuntimeWarning)
                spam_column = list(classifier.classes_).index(1)
                probabilities.append(float(classifier.predict_proba(features)[0, spam_column]))
                differences.append(float(log_odds(classifier, features)[0]))
        else:
            probabilities.append(None)
            differences.append(None)
        classifier.partial_fit(features, [item.label], classes=[0, 1])
        fitted = True
        job.progress("sklearn", number, started)
    return outcome(probabilities, differences, {"total": time.perf_counter() - started})


def outcome(probabilities, differences, seconds) -> Outcome:
    verdicts = ["unsure" if p is None else "spam" if p > 0.5 else "ham" for p in probabilities]
    scored = [p for p in probabilities if p is not None]
    ties = sum(p in (0.0, 1.0) for p in scored)
    notes = [f"{ties} of {len(scored)} probabilities are exactly 0 or 1"]
    return Outcome(probabilities, verdicts, seconds, notes, {LOG_ODDS: (differences, 0.0)}, neutral=0.5)
