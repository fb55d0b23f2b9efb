"""kd_demo_tokenizer - the small tokenizer of the kernodeck demo.

A sentence becomes a bag of hashed character trigrams: the text is
lower-cased and framed by '^' and '$', every run of three characters is
hashed with SHA-256 into one of `dim` buckets, and the counts are divided
by the number of trigrams.  Pure Python, deterministic on every platform.
"""

import hashlib

__version__ = "1.0.0"


def trigrams(text):
    """The character trigrams of a sentence, in order."""
    s = "^" + text.lower().strip() + "$"
    return [s[i:i + 3] for i in range(len(s) - 2)]


def bucket(gram, dim):
    """The bucket of one trigram: SHA-256 of its UTF-8 bytes, modulo dim."""
    digest = hashlib.sha256(gram.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "little") % dim


def features(text, dim=64):
    """Relative trigram counts of a sentence, a list of `dim` floats."""
    grams = trigrams(text)
    counts = [0.0] * dim
    for g in grams:
        counts[bucket(g, dim)] += 1.0
    n = float(max(1, len(grams)))
    return [c / n for c in counts]
