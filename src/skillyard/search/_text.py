"""Text normalisation shared by skills and queries: words, stop words, stems.

The same steps run on both sides, so a word in a request and the same word in
a SKILL.md always meet: casefold, split on non-alphanumerics and camelCase,
drop function words, strip common suffixes. The words people use for the same
task are in `_synonyms`.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

MAX_FIELD_CHARS = 8192

STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before being below between
    both but by can could did do does doing done down during each either else etc few for from further had has have
    having he her here hers him his how i if in into is it its itself just let lets like may me might mine more most
    much must my myself need needs no nor not now of off ok okay on once only or other our ours out over own per
    please same shall she should so some such than thank thanks that the their theirs them then there these they
    this those through thus to too under until up upon us very via was we were what when whenever where which while
    who whom whose why will with within without would yes yet you your yours yourself hey hi hello
    skill skills use used uses using want wants wanna gonna help helps something someone thing things stuff really
    able way ways kind sort lot bit one two three four five six seven eight nine ten first second third
    every whole ever actually maybe
    don doesn didn isn aren wasn weren haven hasn hadn couldn shouldn wouldn ll ve re im ive dont doesnt didnt
    isnt arent cant wont youre thats whats theres pls plz thx ur
    anything anyone anybody everyone everybody everything nobody nothing somebody somewhere anywhere
    since across already still even almost quite rather though although whatever however ones
    """.split()
)

#: Words that say little about which task is meant: light verbs ("make", "get", "turn"), time deixis ("today",
#: "last week", "an hour") and vague nouns ("time", "part"). They still match (recall first), with VAGUE_WEIGHT
#: of the weight their rarity would give them: in a small catalog "turn" or "last" is rare, and a skill that
#: happens to use it outranked the one the request is about. Each word stands for the forms that stem to it
#: ("made", "making", "weeks"): only forms the stemmer reads apart ("got", "said") are listed too. Not
#: "minutes": the minutes of a meeting are a task.
VAGUE_WORDS = frozenset(
    """
    make get got go goes going turn keep look tell say said see show new old last next take put give know think
    try tried start come stop find work time hour day week month year today tonight yesterday tomorrow
    morning night part little big small good bad great nice sure guy people person
    """.split()
)
#: Share of its IDF weight a vague word, or a bare number ("412", "2005"), carries.
VAGUE_WEIGHT = 0.35

#: Irregular verb forms and the base form the stemmer would give the regular ones ("wrote" meets "write"),
#: written as comma-separated groups of a base form and its irregular forms.
IRREGULAR: dict[str, str] = {
    form: verb[0]
    for verb in (
        group.split()
        for group in """
    write wrote written rewrote rewritten, run ran, take took taken, make made, send sent,
    build built rebuilt, draw drew drawn, buy bought, spend spent, find found, lose lost, pay paid,
    sell sold, keep kept, break broke broken, choose chose chosen, freeze froze frozen, shrink shrank shrunk,
    begin began begun, grow grew grown, throw threw thrown, feel felt, give gave given, go went gone,
    come came, see saw seen, know knew known, steal stole stolen, forget forgot forgotten, hide hid hidden,
    fall fell fallen, catch caught, teach taught, think thought, bring brought, tell told, hold held,
    stand stood, understand understood, win won, hang hung, sleep slept, speak spoke spoken,
    undo undid undone, drive drove driven, eat ate eaten, fly flew flown, wear wore worn, tear tore torn,
    sing sang sung, swim swam swum, mistake mistook mistaken,
    """.split(",")
    )
    if verb
    for form in verb[1:]
}

#: The last character before a camelCase boundary ("parseSkill", "HTMLParser").
_CAMEL = re.compile(r"[a-z0-9](?=[A-Z])|[A-Z](?=[A-Z][a-z]{2})")
_WORD = re.compile(r"[^\W_]+")
_VOWEL = re.compile(r"[aeiouy]")


#: British endings and the American ones they are read as ("analyse" meets "analyze", "colour" meets
#: "color"), longest first. Both sides are normalised, so a word spelt -ise in both varieties ("advertise")
#: is only renamed; words shorter than MIN_SPELLING letters are left alone ("rise", "four", "hour").
SPELLING_ENDINGS = tuple(
    tuple(pair.split(":"))
    for pair in """
    isations:izations isation:ization ysing:yzing ising:izing ysers:yzers isers:izers ourite:orite
    ouring:oring ysed:yzed yser:yzer ised:ized iser:izer yses:yzes ises:izes oured:ored ogues:ogs ogue:og
    yse:yze ise:ize ours:ors our:or tres:ters tre:ter
    """.split()
)
MIN_SPELLING = 6


def american(word: str) -> str:
    """The American spelling of a British ending, else the word unchanged."""
    if len(word) >= MIN_SPELLING:
        for british, us in SPELLING_ENDINGS:
            if word.endswith(british):
                return word[: -len(british)] + us
    return word


@functools.lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """A conservative suffix stripper: plural `s`/`ies`, `ing`, `ed`, final `e`, after reading British endings
    as American ones; the same rules for docs and queries."""
    w = american(IRREGULAR.get(word, word))
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) >= 4:
        w = w[:-1]
    for suffix in ("ing", "ed"):
        if w.endswith(suffix) and len(w) >= len(suffix) + 3:
            base = w[: -len(suffix)]
            if _VOWEL.search(base):
                if len(base) >= 4 and base[-1] == base[-2] and base[-1] not in "aeioulsz":
                    base = base[:-1]
                w = base
            break
    if len(w) >= 4 and w.endswith("e") and not w.endswith("ee"):
        w = w[:-1]
    return w


def _raw_words(text: str, camel: bool = True) -> list[str]:
    """Casefolded words with camelCase split ("parseSkillFile", "HTMLParser"); regex passes only, no word loop.

    `camel=False` skips the split (a second full regex pass): used for body text, where camelCase
    words are mostly code identifiers and the pass would be almost half the cost of indexing a body.
    """
    if not text.isascii():
        text = fold_accents(text)
    split = _CAMEL.sub(r"\g<0> ", text) if camel else text
    words = _WORD.findall(_folded(split))
    if len(split) != len(text):
        # the unsplit forms too: "YouTube", "iOS" and "LaTeX" are words themselves, and their
        # parts alone ("tube", "os", "te") are not what a request typed in lower case says
        seen = set(words)
        words += [w for w in _WORD.findall(_folded(text)) if w not in seen]
    return words


def _folded(text: str) -> str:
    text = text.casefold()
    return fold_accents(text) if not text.isascii() else text  # casefolding can add accents ("İ")


def fold_accents(text: str) -> str:
    """Letters without their accents ("cláusula" -> "clausula"), so a request typed without them still
    meets the text, and a request in a language that writes them meets its English cognates' roots."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


_STEMS: dict[str, str] = {}


def _stems_for(words: Iterable[str]) -> dict[str, str]:
    """Fill the word -> term cache ("" for dropped words) for any word not seen before."""
    stems = _STEMS
    missing = [w for w in words if w not in stems]
    if missing:
        if len(stems) > 500_000:
            stems.clear()
        for w in missing:
            stems[w] = "" if len(w) < 2 or w in STOP_WORDS else stem(w)
    return stems


_VAGUE_TERMS = frozenset(stem(w) for w in VAGUE_WORDS if w not in STOP_WORDS)


def is_vague(term: str) -> bool:
    """Whether an index term says little about the task: a vague word (VAGUE_WORDS) or a bare number."""
    return term.isdigit() or term in _VAGUE_TERMS


def tokenize(text: str) -> list[str]:
    """Index terms of a text, in order: casefolded, camelCase/kebab split, stop words dropped, stemmed."""
    if not isinstance(text, str) or not text:
        return []
    words = _raw_words(text)
    stems = _stems_for(set(words))
    return [t for t in map(stems.__getitem__, words) if t]


def term_counts(text: str, camel: bool = True) -> tuple[dict[str, int], int]:
    """Term frequencies and the number of terms; counts words first so each distinct word is stemmed once."""
    if not isinstance(text, str) or not text:
        return {}, 0
    words = Counter(_raw_words(text, camel))
    stems = _stems_for(words)
    counts: dict[str, int] = {}
    n = 0
    for w, c in words.items():
        t = stems[w]
        if t:
            counts[t] = counts.get(t, 0) + c
            n += c
    return counts, n
