"""Numbers written in English words and dates written in text, as the exact checkers read them.

>>> parse_number_words("twenty-two"), find_dates("on 5 March 2024")
(22.0, [{datetime.date(2024, 3, 5)}])
"""

import re
from datetime import date

__all__ = ["find_dates", "only_date", "parse_number_words"]

_UNITS = {
    word: value
    for value, word in enumerate(
        # A word list reads best as one string.
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "  # noqa: SIM905
        "fourteen fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {
    word: 10 * value
    for value, word in enumerate(
        "twenty thirty forty fifty sixty seventy eighty ninety".split(),  # noqa: SIM905
        2,
    )
}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}


def parse_number_words(text: str) -> float | None:
    """Read a number written in English words, e.g. "minus twenty-two"; None if it is not one.

    >>> parse_number_words("one hundred and five"), parse_number_words("seven apples")
    (105.0, None)
    """
    words = re.sub(r"[-,]", " ", text.casefold()).split()
    sign = -1.0 if words[:1] in (["minus"], ["negative"]) else 1.0
    words = [word for word in words[1 if sign < 0 else 0 :] if word != "and"]
    if not words:
        return None
    total, current = 0, 0
    for word in words:
        if word in _UNITS:
            current += _UNITS[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word in _SCALES:
            total += max(current, 1) * _SCALES[word]
            current = 0
        else:
            return None
    return sign * (total + current)


_MONTHS = (  # noqa: SIM905 - one string reads best
    "january february march april may june july august september october november december"
).split()
_MONTH_NUMBER = {name: n for n, month in enumerate(_MONTHS, 1) for name in (month, month[:3])}
_MONTH_NUMBER["sept"] = 9
_MONTH = "|".join(sorted(_MONTH_NUMBER, key=len, reverse=True))
_DATE = re.compile(
    r"\b(?P<iy>\d{4})-(?P<im>\d{1,2})-(?P<id>\d{1,2})\b"
    rf"|\b(?P<nm>{_MONTH})\.? (?P<nd>\d{{1,2}})(?:st|nd|rd|th)?,? (?P<ny>\d{{4}})\b"
    rf"|\b(?P<dd>\d{{1,2}})(?:st|nd|rd|th)? (?:of )?(?P<dm>{_MONTH})\.?,? (?P<dy>\d{{4}})\b"
    r"|\b(?P<sa>\d{1,2})[/.](?P<sb>\d{1,2})[/.](?P<sy>\d{4})\b",
    re.IGNORECASE,
)


def find_dates(text: str) -> list[set[date]]:
    """Every date written in `text`, in order; each mention as the set of dates it may mean.

    A slash date such as 03/05/2024 may be day- or month-first, so it stands for both.

    >>> find_dates("from 2024-02-29 to 3rd of March, 2024")
    [{datetime.date(2024, 2, 29)}, {datetime.date(2024, 3, 3)}]
    """
    mentions = []
    for match in _DATE.finditer(" ".join(text.split())):
        found = match.groupdict()
        if found["iy"]:
            readings = [(found["iy"], found["im"], found["id"])]
        elif found["ny"]:
            readings = [(found["ny"], _MONTH_NUMBER[found["nm"].lower()], found["nd"])]
        elif found["dy"]:
            readings = [(found["dy"], _MONTH_NUMBER[found["dm"].lower()], found["dd"])]
        else:
            readings = [
                (found["sy"], found["sa"], found["sb"]),
                (found["sy"], found["sb"], found["sa"]),
            ]
        dates = set()
        for year, month, day in readings:
            try:
                dates.add(date(int(year), int(month), int(day)))
            except ValueError:  # 2023-02-30 and the like: not a date
                continue
        if dates:
            mentions.append(dates)
    return mentions


def only_date(text: str) -> date | None:
    """The day `text` is when it is one date and nothing else, written any way `find_dates`
    reads that means one day; else None ("03/05/2024" may be two days, "5 May 2024 at noon" is
    more than a date).

    >>> only_date("March 11, 2024"), only_date("03/05/2024"), only_date("on 11 March 2024")
    (datetime.date(2024, 3, 11), None, None)
    """
    written = " ".join(text.split()).strip(" .")
    mentions = find_dates(written)
    if _DATE.fullmatch(written) is None or len(mentions) != 1 or len(mentions[0]) != 1:
        return None
    return next(iter(mentions[0]))
