"""Small words for messages: counted nouns and the indefinite article.

Messages are built from counts and kinds that vary ("1 outputs", "a add of fan-in 6");
these helpers make them read as English whatever the value.
"""

from __future__ import annotations


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``"1 output"``, ``"2 outputs"``, ``"12,000 gates"``; ``many`` for an irregular plural."""
    return f"{count:,} {noun if count == 1 else (many or noun + 's')}"


def article(word: str) -> str:
    """``"an add"``, ``"a mul"``, ``"an input"``, ``"a sign"``, ``"a unique-hard"``: the word after its article."""
    lower = word.lower()
    vowel = lower[:1] in ("a", "e", "i", "o") or (lower[:1] == "u" and not lower.startswith(("uni", "use", "usu")))
    return f"{'an' if vowel else 'a'} {word}"


def unprintable(text: str) -> str | None:
    """What is wrong with a name that reaches terminal lines, or None: a control character (an ANSI escape
    sequence starts with one, a newline splits a line), a format character (a bidirectional override
    reorders what follows) or a line or paragraph separator, named by its code point; never printed raw."""
    import unicodedata

    for column, c in enumerate(text, 1):
        category = unicodedata.category(c)
        if category in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            return (f"character U+{ord(c):04X} ({unicodedata.name(c, 'a control character')}) at column {column}: "
                    "names must be printable")
    return None


def file_stem(path: str, default: str) -> str:
    """A file's name without its folder and extension, as the name of what it holds when the file names nothing
    (``default`` if empty), each unprintable character as ``_``: the name reaches terminal lines and certificates."""
    import os

    stem = os.path.splitext(os.path.basename(path))[0]
    return "".join(c if c.isprintable() else "_" for c in stem) or default
