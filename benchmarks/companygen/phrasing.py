"""Sentence shapes, value spellings and block layouts for prose facts.

Every prose fact is written through one of several shapes picked by the seeded RNG, so that an
extractor must learn the pattern (qualifier before or after, bounds such as "up to" and "no
later than", adjective forms "30-day", tables, lists, definition lists, numbers as words,
money as "$1.2M" or "USD 1,200,000") rather than the data.
"""

from __future__ import annotations

import random

_SMALL = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
          "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
          "eighteen", "nineteen", "twenty"]
_TENS = {30: "thirty", 40: "forty", 45: "forty-five", 50: "fifty", 60: "sixty", 90: "ninety"}


def number_words(n: int) -> str | None:
    if 0 <= n < len(_SMALL):
        return _SMALL[n]
    return _TENS.get(n)


def duration_text(rng: random.Random, n: int, unit: str, *, allow_words: bool = True) -> str:
    """``30 days`` / ``thirty days`` / ``30 days`` (unit singular for 1)."""
    word = number_words(n) if allow_words else None
    u = unit if n != 1 else unit.rstrip("s")
    if unit == "business days" and n == 1:
        u = "business day"
    if word and rng.random() < 0.3:
        return f"{word} {u}"
    return f"{n} {u}"


def duration_adjective(n: int, unit: str) -> str:
    """``30-day``, ``4-hour``, ``24-month`` (only for simple units)."""
    return f"{n}-{unit.rstrip('s').split()[-1]}"


def money_text(rng: random.Random, amount: float, currency: str = "USD") -> str:
    shapes = ["sym", "code", "words"]
    if amount >= 100_000:
        shapes.append("short")
    shape = rng.choice(shapes)
    whole = int(round(amount))
    if shape == "sym":
        return f"${whole:,}"
    if shape == "code":
        return f"{currency} {whole:,}"
    if shape == "words":
        return f"{whole:,} US dollars"
    if amount >= 1_000_000:
        return f"${amount / 1e6:g}M"
    return f"${amount / 1e3:g}K"


def number_text(rng: random.Random, n: int) -> str:
    word = number_words(n)
    if word and rng.random() < 0.3:
        return word
    return f"{n:,}" if rng.random() < 0.5 else str(n)


# --- sentence shapes ------------------------------------------------------------------------
# Slots: {E} entity, {P} attribute phrase, {V} value text, {A} adjective form of a duration,
# {Q} qualifier value as written. Each family lists at least four shapes.

ENTITY_SHAPES = [
    "The {P} of {E} is {V}.",
    "{E} has a {P} of {V}.",
    "For {E}, the {P} is {V}.",
    "{E}: {P} {V}.",
    "We record a {P} of {V} for {E}.",
]

QUALIFIED_SHAPES = [
    "The {P} for {Q} customers is {V}.",
    "{Q} customers get a {P} of {V}.",
    "For {Q} accounts the {P} is {V}.",
    "On the {Q} plan, the {P} is {V}.",
    "{Q}: {P} of {V}.",
]

# attribute-specific shapes for durations with qualifiers (bounds and verb forms)
VERB_SHAPES: dict[str, list[str]] = {
    "rma window": [
        "{Q} customers may return a device within {V} of delivery.",
        "Returns from {Q} customers are accepted up to {V} after delivery.",
        "{Q} customers must request a return authorisation no later than {V} after delivery.",
        "A {A} return window applies to {Q} customers.",
        "Devices bought under the {Q} plan can be sent back for up to {V}.",
    ],
    "on-site response time": [
        "For {Q} customers a field engineer is on site within {V}.",
        "{Q} customers can expect an engineer on site no later than {V} after the call.",
        "On-site response for {Q} contracts: up to {V}.",
        "A {A} on-site response is guaranteed to {Q} customers.",
        "We send a technician to {Q} sites within {V} of the service call.",
    ],
    "loaner turnaround": [
        "{Q} customers receive a loaner device within {V}.",
        "A replacement unit ships to {Q} customers no later than {V} after the fault report.",
        "Loaner devices reach {Q} accounts in up to {V}.",
        "{Q} accounts get {A} loaner delivery.",
    ],
    "warranty period": [
        "{E} comes with a {A} warranty.",
        "{E} is covered by the manufacturer's warranty for {V}.",
        "The warranty on {E} runs for {V}.",
        "Warranty coverage of {E}: {V}.",
    ],
    "calibration interval": [
        "{E} must be recalibrated every {V}.",
        "The calibration interval of {E} is {V}.",
        "Calibrate {E} at least once every {V}.",
        "{E} needs a calibration check every {V}.",
        "Service intervals: {E} requires calibration every {V}.",
    ],
    "battery runtime": [
        "{E} runs for up to {V} on battery.",
        "On a full charge {E} lasts {V}.",
        "The battery runtime of {E} is {V}.",
        "{E} offers {V} of battery operation.",
    ],
    "list price": [
        "The list price of {E} is {V}.",
        "{E} lists at {V}.",
        "{E} is priced at {V} per unit.",
        "Each {E} costs {V} at list.",
    ],
    "restocking fee": [
        "A restocking fee of {V} applies to every returned device.",
        "Returned devices are charged a {V} restocking fee.",
        "The restocking fee is {V}.",
        "We deduct {V} from the refund as a restocking fee.",
    ],
    "bed count": [
        "{E} operates {V} beds.",
        "{E} has {V} beds in service.",
        "{E} runs a {V}-bed facility.",
        "Bed count at {E}: {V}.",
    ],
    "account manager": [
        "The account manager of {E} is {V}.",
        "{V} manages the {E} account.",
        "{E} is looked after by {V}.",
        "Account manager for {E}: {V}.",
    ],
    "renewal date": [
        "{E} has a renewal date of {V}.",
        "The {E} contract renews on {V}.",
        "{E} is up for renewal on {V}.",
        "Renewal of {E}: {V}.",
    ],
    "pallet capacity": [
        "{E} holds up to {V} pallets.",
        "The pallet capacity of {E} is {V}.",
        "{E} has room for {V} pallets.",
        "Storage at {E}: {V} pallet positions.",
    ],
    "dispatch cutoff": [
        "Orders reaching {E} before {V} ship the same day.",
        "The same-day dispatch cut-off at {E} is {V}.",
        "{E} dispatches same day for orders in by {V}.",
        "Cut-off for same-day shipping at {E}: {V}.",
    ],
    "dock hours": [
        "The loading dock at {E} is open {V}.",
        "{E} receives deliveries {V}.",
        "Dock hours of {E}: {V}.",
        "Deliveries to {E} are accepted {V}.",
    ],
}


def fill(shape: str, *, E: str = "", P: str = "", V: str = "", A: str = "", Q: str = "") -> str:
    out = shape.format(E=E, P=P, V=V, A=A, Q=Q)
    return out[0].upper() + out[1:]
