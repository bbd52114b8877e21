"""Does the evidence answer what the question asks, or only mention what it is about?

A question names an entity ("the Lyon depot") and asks an aspect of it ("its dress code"). A
BM25 score is high from the entity's words alone, so a wiki that holds the depot's opening
hours but not its dress code scores well on the dress-code question. Abstention therefore looks
at evidence coverage, claim by claim:

- the **aspect**: the question's content words that are not its entity's name. A claim answers
  only when it covers enough of the aspect's weight, in its attribute, value or quote, through
  the word groups of :mod:`compiler.retrieval`, or through the schema's vocabulary (the
  attribute's name, phrases and aliases in ``compiler/schema/base.yaml``: a claim on
  ``employees`` covers "headcount");
- the **asked head**: the noun phrase after "what is the", "which", "how many", "who is the"
  ("what is the *data retention period* of …"). At least half of its words must be covered (a
  word naming a kind of value, "date", "number", "period", is covered by a value of that
  shape);
- the **answer type**: "when" wants a date, "how long" a duration, "how many" a number, "who"
  a name (:func:`compiler.retrieval.answer_type`); a statement answers such a question only if it
  holds a value of that shape;
- an **unknown name**: a capitalised word inside the question that the wiki never uses ("the
  *Diamond* plan", "trips to the *United* States", "Acme *Robotics*") names something the wiki
  does not know: nothing in it answers a question about it.

Generic English and the schema only: no rule knows a corpus's words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path

# a word that names the kind of value asked for, and the shape such a value has
KIND_WORDS: dict[str, re.Pattern] = {}
_DURATION = re.compile(r"\d\s*(?:[a-z]+\s+)?(second|minute|min|hour|hr|day|week|month|year)s?\b|"
                       r"\d+x\d+", re.I)


class _Quantity:
    """(answer6) The shape of a quantity ("the *number* of …", "the *value* of the product",
    "the *total*"): a digit that is not part of a date ("2026-09-14"), a time of day
    ("11:20") or an identifier ("RX-1093", "SEV-1", "v2.8"). A record's date or key says no
    amount of anything, though it holds digits. Duck-types the compiled pattern it replaces
    (``search``), so it is a shape like the others."""

    _MONTH = (r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?")
    _NOT = re.compile(r"\d{4}-\d\d(?:-\d\d)?(?:[T ][\d:.]+Z?)?|\b\d{1,2}:\d\d\b|"
                      r"\b[A-Za-z]+[-_#]?\d[\w.-]*|\b\d+[A-Za-z]+-\d+\b|"
                      rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}(?:\s+\d{{4}})?\b|"
                      rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b", re.I)
    _DIGIT = re.compile(r"\d")
    pattern = r"\d"

    def search(self, text: str) -> re.Match | None:
        return self._DIGIT.search(self._NOT.sub(" ", text))


_NUMBER = _Quantity()
_DATE = re.compile(r"\d{4}-\d\d|\d{1,2}:\d\d|\b(january|february|march|april|may|june|july|"
                   r"august|september|october|november|december|monday|tuesday|wednesday|"
                   r"thursday|friday|saturday|sunday)\b", re.I)
_PERCENT = re.compile(r"\d\s*%|\bpercent", re.I)
_RANGE = re.compile(r"\d\s*(?:\S{0,3}\s*)(?:to|-|–|and)\s*-?\s*\d", re.I)
# what a fee, price, cost or rate is: an amount of money, a share or a count per unit, never a
# span of time ("30 days after the trip" is no fee, "120 days" no commission rate)
_AMOUNT = re.compile(r"[$€£¥]\s*\d|\d\s*%|\bpercent|\d[\d,.]*\b(?!\s*(?:business\s+|calendar\s+|"
                     r"working\s+)?(?:second|minute|min|hour|hr|day|week|month|year)s?\b)", re.I)
# a temperature says its unit: "at what *temperature*" is answered by "2 to 8 °C"
_TEMPERATURE = re.compile(r"\d\s*(?:°|º|℃|℉|degrees?\b|deg\b)", re.I)
_DISTANCE = re.compile(r"\d\s*(?:miles?|mi|km|kilomet(?:re|er)s?|metres?|meters?|feet|ft|"
                       r"yards?|yds?)\b", re.I)
# "time" is a duration ("lead time") or a time of day ("what time is the last dispatch")
_TIME = re.compile(_DURATION.pattern + r"|\d{1,2}:\d\d", re.I)
for _words, _shape in (("period duration length term window interval frequency days hours months years "
                        "weeks minutes", _DURATION),
                       ("time", _TIME),
                       # "how *big* is the deal", "how *large* is the fleet": a quantity
                       ("number amount count total figure quantity size value level big "
                        "large", _NUMBER),
                       ("price cost fee rate", _AMOUNT),
                       ("date deadline", _DATE),
                       ("percentage percent share proportion", _PERCENT),
                       ("range", _RANGE),
                       ("temperature temp", _TEMPERATURE),
                       # (answer5) a distance says its unit: "the max *distance* from a
                       # clinic" is answered by "within 60 miles"
                       ("distance radius", _DISTANCE)):
    for _w in _words.split():
        KIND_WORDS[_w] = _shape

# the value types of the schema (compiler/schema/model.py) that have each shape: a claim on a
# declared attribute has its type whatever the source wrote ("NET 45" is payment terms, a
# duration in days; "III" is a device class, no number)
_TYPED: dict[int, frozenset[str]] = {
    id(_DURATION): frozenset({"duration"}),
    id(_TIME): frozenset({"duration", "datetime"}),
    id(_NUMBER): frozenset({"number", "money", "percent", "duration"}),
    id(_DATE): frozenset({"date", "datetime"}),
    id(_PERCENT): frozenset({"percent"}),
    id(_AMOUNT): frozenset({"number", "money", "percent"}),
}


def typed_as(shape: re.Pattern, value_type: str | None) -> bool:
    """The schema's value type of a claim has the shape a word of the question names."""
    return bool(value_type) and value_type in _TYPED.get(id(shape), frozenset())


# nouns that name someone (a person, a team, an organisation): an attribute whose head noun is
# one of them answers "who" ("account *manager*", "escalation *contact*", "fuel card
# *provider*"); any other text field of the page does not ("who manages the account" is not its
# *city*, "who signed the pilot" not its *deal type*)
AGENT_NOUNS = frozenset("""manager owner lead leader head chief director officer contact rep
    representative agent handler assignee reporter requester author approver sponsor steward
    supervisor coordinator administrator admin provider supplier vendor carrier courier partner
    customer client team department group desk person people staff member employee signatory
    signer buyer seller founder president chair chairperson ceo cfo cto coo ciso dpo
    responsible maintainer champion custodian trustee guardian principal liaison consultant
    engineer technician specialist analyst architect auditor inspector reviewer account
    company firm organisation organization insurer insurance bank lender landlord tenant
    contractor subcontractor distributor reseller manufacturer maker""".split())
# "-er"/"-or"/"-ist"/"-ee" nouns that name things, not someone
_NOT_AGENTS = frozenset("""number order filter center centre container parameter identifier
    register quarter counter letter chapter trailer transfer header footer border marker barrier
    sensor monitor motor meter error floor power water layer folder cover timer other winter
    summer september october november december compressor processor connector adapter adaptor
    router server printer scanner charger heater cooler freezer chiller blender mixer burner
    boiler generator regulator indicator detector converter inverter voucher hamper poster
    banner sticker tier diameter perimeter kilometer kilometre millimeter liter litre master
    matter character factor vector sector color colour humour favour behaviour interior
    exterior mirror spider paper leather feather weather shelter cluster pointer buffer""".split())
_AGENT_SUFFIX = ("er", "or", "ist", "ee")


def names_an_agent(attribute: str, vocabulary: Iterable[str] = ()) -> bool:
    """The attribute names someone: its head noun (the last word) is a noun for a person, team
    or organisation (by :data:`AGENT_NOUNS`, or an agent noun's ending: "claims *handler*",
    "site *supervisor*"), or the schema's words for it make a passive agent phrase ("tended
    *by*", "looked after *by*"). ``vocabulary``: the schema's words of the attribute."""
    words = re.findall(r"[a-z]+", attribute.lower())
    if not words:
        return False
    head = words[-1]
    if head in AGENT_NOUNS or head.rstrip("s") in AGENT_NOUNS:
        return True
    if len(head) >= 6 and head.endswith(_AGENT_SUFFIX) and head not in _NOT_AGENTS:
        return True
    return "by" in set(vocabulary)


# job titles and units a value may name someone by ("Discount above 35%: *CFO*", "*VP* of
# Sales", "Account *executive*"); "customer", "partner" are left out: as values they are
# categories ("Existing Customer - Upgrade")
_TITLES = frozenset("""ceo cfo cto coo ciso cio cmo dpo vp svp evp president director manager
    officer head lead executive chief engineer technician team department desk supervisor
    coordinator administrator owner committee board""".split())


def value_names_an_agent(value: str) -> bool:
    """A short value whose first or last word is a job title or a unit ("CFO", "VP of Sales",
    "Account executive", "Platform Team")."""
    words = re.findall(r"[^\W\d_]+", value.lower())
    if not words or len(words) > 5 or re.search(r"\d", value):
        return False
    return words[0] in _TITLES or words[-1] in _TITLES


# the head of what is asked: the noun phrase after a question frame, up to a word that ends it
_ENDS = (r"a|an|the|of|for|in|at|on|to|from|with|by|per|under|between|when|if|that|and|or|"
         r"does|do|did|"
         r"is|are|was|were|has|have|had|can|could|will|would|should|must|may|get|gets|we|i|you|"
         r"they|it|our|your|their|its|"
         # common verbs that follow the asked noun ("which plan applies", "what fee covers")
         r"applies|apply|covers|cover|falls|fall|includes|include|uses|use|runs|run|needs|need|"
         r"offers|offer|hosts|host|handles|handle|belongs|belong|works|work|goes|go|comes|come|"
         r"takes|take|makes|make|means|mean|gives|give|holds|hold|says|say|shows|show|lets|let|"
         r"happens|happen|applied|used|needed|required|allowed|expected|set|given|"
         r"fit|fits|last|lasts|contain|contains|employ|employs|serve|serves|store|stores|"
         r"sell|sells|"
         # words that exclude what follows ("the overtime cap *outside* peak season")
         r"outside|except|excluding|apart|aside")
# (answer8) an ending word must stand alone: "per-employee", "on-call" are modifiers of the
# phrase ("the Enterprise *per-employee* price"), not its end
_PHRASE = r"(?P<h>(?:[\w'-]+\s+){0,4}?[\w'-]+?)(?=\s+(?:" + _ENDS + r")\b(?!-)|\s*[?.,;!]|\s*$)"
_HEADS = (
    re.compile(r"\b(?:what|which)(?:'s|\s+is|\s+are|\s+was|\s+were)\s+(?:the|a|an)\s+" + _PHRASE,
               re.I),
    # "what's Luis Ferreira's phone number": the phrase after a possessive name
    re.compile(r"\b(?i:what|which)(?i:'s|\s+is|\s+are|\s+was|\s+were)\s+(?:[A-Z][\w-]*\s+){0,3}"
               r"[A-Z][\w-]*'s\s+" + _PHRASE),
    re.compile(r"\b(?:what|which)\s+(?!is\b|are\b|was\b|were\b|does\b|do\b|did\b|can\b|"
               r"should\b|would\b|will\b|has\b|have\b)" + _PHRASE, re.I),
    re.compile(r"\bhow\s+(?:many|much)\s+(?!is\b|are\b|does\b|do\b|did\b|was\b|were\b|can\b)"
               + _PHRASE, re.I),
    re.compile(r"\bwho(?:'s|\s+is|\s+are|\s+was)\s+(?:the\s+)?" + _PHRASE, re.I),
    # "how long is the *warranty* on …": a measure asked of a noun phrase (not "how long is
    # it", nor "how long does X take", whose subject _DURATION_SUBJECT reads)
    # (a phrase ending in a state, "the platform *down*", "the device *covered*", asks how
    # long a state lasted: no asked noun)
    re.compile(r"\bhow\s+(?:long|soon|often|big|large|far|old|heavy|wide)\s+(?:is|are|was|were)"
               r"\s+(?:the|a|an|our|their|its|your)\s+(?P<h>(?:[\w'-]+\s+){0,3}?"
               r"(?!(?:down|up|out|off|open|closed|offline|online|late|valid|available|"
               r"unavailable|due|good|in|on)\b)(?![\w'-]+ed\b)[\w'-]+?)"
               r"(?=\s+(?:on|of|for|at|in|with|under|from)\b|\s*[?.!]|\s*$)", re.I),
    # "is there a *volume discount* on …": a yes/no question asks whether the phrase exists
    re.compile(r"\b(?:is|are)\s+there\s+(?:a|an|any)\s+" + _PHRASE, re.I),
)
# "how long does *a sterilisation cycle* (of X) take / last": the subject of the duration
_DURATION_SUBJECT = re.compile(
    r"\bhow\s+(?:long|often|quickly|soon)\s+(?:does|do|did|will|would|can|could|should|is|are|"
    r"was|were)\s+(?P<s>(?:[\w'-]+\s+){1,8}?)(?:take|takes|last|lasts)\b", re.I)
_CAPITAL = re.compile(r"(?<![\w'-])([A-Z][^\W_]*)")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\"\s*)$")


def asked_scope(question: str, stopwords: frozenset[str]) -> list[str]:
    """What a preposition after the asked phrase restricts it to ("the product manager *for
    the mobile apps*", "the warranty *on spare batteries*"), stop words dropped; [] when the
    asked phrase is not restricted. A question without an asked phrase ("how long …") is
    restricted by what "of", "for" or "on" says anywhere in it. A time said relative to now
    ("next year", "this quarter") restricts nothing a source could say: sources date things."""
    question = _RELATIVE_TIME.sub(" ", question)
    for pattern in _HEADS:
        m = pattern.search(question)
        if m and [w for w in m.group("h").lower().split() if w not in stopwords]:
            words: list[str] = []
            rest = _WORD.findall(question[m.end("h"):])
            if rest and rest[0].lower() in _SCOPE_PREPOSITIONS:
                for w in rest[1:7]:
                    if w.lower() in _DETERMINERS or w.lower() in _UNRESTRICTING:
                        continue
                    if w.lower() in _PREPOSITIONS or re.fullmatch(_ENDS, w.lower()):
                        break
                    words.append(w)
            return [w for w in (x.lower().removesuffix("'s") for x in words)
                    if w not in stopwords]
    # no asked phrase ("how long do we keep recordings *of live lessons*"): what "of",
    # "for" or "on" restricts anywhere in the question ("in dollars" is a unit, not a scope)
    words = []
    toks = _WORD.findall(question)
    for i, w in enumerate(toks):
        if w.lower() in _SCOPE_PREPOSITIONS - {"in", "at"} and i > 0:
            for x in toks[i + 1:i + 7]:
                if x.lower() in _DETERMINERS or x.lower() in _UNRESTRICTING:
                    continue
                if x.lower() in _PREPOSITIONS or re.fullmatch(_ENDS, x.lower()):
                    break
                words.append(x)
    return [w for w in (x.lower().removesuffix("'s") for x in words) if w not in stopwords]


_SCOPE_PREPOSITIONS = frozenset("for of on at in".split())
_RELATIVE_TIME = re.compile(r"\b(?:next|this|last|coming|upcoming|following|previous|current)\s+"
                            r"(?:calendar\s+|fiscal\s+|financial\s+)?(?:year|quarter|month|week|"
                            r"season)\b", re.I)
_DETERMINERS = frozenset("the a an our its their your this that these those".split())
# words that say which kind is meant without naming another thing ("a *normal* KYC check on a
# *new* merchant"): sources rarely repeat them beside the value, so as scope they only cost answers
UNRESTRICTING = _UNRESTRICTING = frozenset("new brand-new general normal standard typical regular usual ordinary existing current "
                           "any each every all some given particular single".split())


def asked_head(question: str, stopwords: frozenset[str]) -> list[str]:
    """The words of the noun phrase the question asks for ("what is the return window for …"
    → ["return", "window"]), stop words dropped; [] when no frame of the question says."""
    for pattern in _HEADS:
        m = pattern.search(question)
        if m:
            words = [w.lower().removesuffix("'s") for w in m.group("h").split()]
            words = [w for w in words if w not in stopwords]
            if words:
                return words
    return []


# "how long does it take to *charge* …", "how long does the battery take to *recharge*",
# "how long are tickets *retained*": the action whose duration is asked; a claim answers only
# when its attribute names that action ("charge time", not "battery runtime")
_ACTION = re.compile(
    r"\bhow\s+(?:long|quickly|soon)\s+(?:does|do|did|will|would|can|could|should|must)\s+"
    r"(?:it\s+take\s+(?:for\s+(?:[\w'-]+\s+){1,6}?)?|(?:[\w'-]+\s+){1,6}?take\s+)to\s+"
    r"(?:\w+ly\s+)?(?P<v>[a-z]+)\b", re.I)
# "how long do customers *have to* return …", "how many days do I get to file …", "how much
# time does a driver have to report …": the window for an action; a claim answers only when its
# attribute names that action ("return window", not a support deadline)
_WINDOW = re.compile(
    r"\bhow\s+(?:long|much\s+time|many\s+(?:days|weeks|months|hours|minutes|years))\s+"
    r"(?:(?:does|do|did|will|would|can|could|should|must)\s+(?:[\w'-]+\s+){1,6}?"
    r"(?:have|get|got)\s+|is\s+there\s+)?to\s+(?:\w+ly\s+)?(?P<v>[a-z]+)\b", re.I)
_PASSIVE = re.compile(
    r"\bhow\s+(?:long|often)\s+(?:is|are|was|were)\s+(?P<s>(?:[\w'-]+\s+){1,5}?)"
    r"(?P<v>[a-z]+(?:ed|en))\s*(?:[?.!]|$)", re.I)


# "how long does a machine have to *sit* idle before …": a verb of lasting names the duration
# asked (a threshold), not an action with a window
_LASTING = frozenset("sit wait stay remain be keep run last idle hold spend go pass elapse "
                     "live sleep rest continue".split())


# "how long do I have to *give notice*", "… to *make a claim*": a verb that says little; the
# action is its object
_LIGHT = frozenset("give make take do put get lodge raise".split())


def asked_action(question: str, stopwords: frozenset[str]) -> str:
    """The verb whose duration a "how long does it take to V" / "how long does X take to V" /
    "how long are X Ved" question asks, or the window a "how long do X have to V" one asks, or
    "" (none, or a verb that says nothing: "get")."""
    for pattern in (_ACTION, _WINDOW, _PASSIVE):
        m = pattern.search(question)
        light = pattern is _WINDOW and m is not None and m.group("v").lower() in _LIGHT
        if m and (light or m.group("v").lower() not in stopwords) and not (
                pattern is _WINDOW and m.group("v").lower() in _LASTING):
            if light:
                obj = action_object(question, stopwords)
                return obj[0] if obj else ""
            return m.group("v").lower()
    return ""


def asks_window(question: str) -> bool:
    """A "how long do X have to V" question: its action may be said in other words by a
    sentence ("wipe" of a deletion deadline), so only an attribute must name it."""
    m = _WINDOW.search(question)
    return bool(m) and not _ACTION.search(question) and m.group("v").lower() not in _LASTING


def action_object(question: str, stopwords: frozenset[str]) -> list[str]:
    """What the asked action is done to ("how long do customers have to return *a
    product*"): part of the action, so no value of a family the answer's attribute belongs to
    ("a product" is not a tier of customer the return window lacks)."""
    for pattern in (_ACTION, _WINDOW):
        m = pattern.search(question)
        if m and (m.group("v").lower() not in stopwords or (
                pattern is _WINDOW and m.group("v").lower() in _LIGHT)) and not (
                pattern is _WINDOW and m.group("v").lower() in _LASTING):
            out: list[str] = []
            for w in _WORD.findall(question[m.end("v"):])[:6]:
                low = w.lower()
                if low in _DETERMINERS:
                    continue
                if low in _PREPOSITIONS or re.fullmatch(_ENDS, low):
                    break
                if low not in stopwords:
                    out.append(low)
            return out
    return []


def passive_subject(question: str, stopwords: frozenset[str]) -> list[str]:
    """What a "how long are *helpdesk tickets* retained" question asks the duration of: its
    words restrict the asked aspect like a scope does."""
    m = _PASSIVE.search(question)
    if not m:
        return []
    words = [w.lower().removesuffix("'s") for w in _WORD.findall(m.group("s"))]
    return [w for w in words if w not in stopwords and w not in _DETERMINERS]


# "how much PTO do *part-time employees* get", "which version is *the export API* slated for",
# "when does *the lease* expire": the subject of the question's verb, when what is asked is its
# object or its date. Its words restrict what is asked like a scope does: the PTO of all staff,
# the version of the product or the date of an accident on the lessee's page does not answer.
_AUX = r"(?:do|does|did|will|would|can|could|should|must|is|are|was|were)"
_SUBJECT_FRAMES = (
    # a head phrase between the question word and the auxiliary ("how much *PTO* do …")
    re.compile(r"\b(?:how\s+(?:much|many)|what|which)\s+(?!" + _AUX + r"\b)(?:[\w'-]+\s+){1,4}?"
               + _AUX + r"\s+(?P<s>[^?.,;!]+)", re.I),
    re.compile(r"\b(?:when|where)\s+" + _AUX + r"\s+(?P<s>[^?.,;!]+)", re.I),
)
# verbs a subject may be followed by before a preposition ("does the plan *allow* per class")
_VERBS = frozenset("""allow allows permit permits require requires ship ships
    start starts begin begins end ends expire expires renew renews close closes open opens arrive
    arrives leave leaves stay stays cost costs pay pays charge charges earn earns
    accrue accrues qualify qualifies count counts happen happens get gets have has receive
    receives""".split())
_CONDITION = re.compile(r"\b(?:if|whenever|once)\s+(?P<c>[^?;!]+)", re.I)
_PARTICIPLE = re.compile(r"[a-z]{3,}ed$", re.I)


def asked_subject(question: str, stopwords: frozenset[str]) -> list[str]:
    """The content words of the subject of the question's verb ("how much PTO do *part-time
    employees* get" → ["part-time", "employees"]), its verb left out; [] when the subject is a
    pronoun ("what do *we* charge"), the question has no such frame, or its verb is not one
    known to end such a subject ("can Standard customers *reach* support": which word is the
    verb is not known, so nothing is restricted)."""
    for pattern in _SUBJECT_FRAMES:
        m = pattern.search(question)
        if not m:
            continue
        toks = _WORD.findall(m.group("s"))
        words: list[str] = []
        stop = ""
        for i, w in enumerate(toks):
            lw = w.lower()
            if not words and lw in _DETERMINERS:
                continue
            if not words and lw in _PRONOUNS:
                return []
            # (a first word is the subject's own, "do *store* managers get")
            if lw in _PREPOSITIONS or lw in _DETERMINERS or (words and (
                    re.fullmatch(_ENDS, lw) or _PARTICIPLE.match(lw))):
                stop = lw
                rest = [t.lower() for t in toks[i + 1:]]
                break
            words.append(w)
        else:
            rest = []
        if not words:
            return []
        if _is_verb(words[-1]) and len(words) > 1:
            words = words[:-1]  # "when does the lease *expire*", "… allow per class": the verb
        elif stop in _PREPOSITIONS or stop in _DETERMINERS or not stop:
            # "does Granite Peak's contract *with us* expire": the verb comes after a phrase
            if not (rest and _is_verb(rest[-1])):
                return []
        elif not (_is_verb(stop) or _PARTICIPLE.match(stop)):
            return []  # "is kept back *when* …": no subject known
        if len(words) > 1 and any(w[:1].isupper() for w in words[:-1]) and not any(
                w.lower().endswith("'s") for w in words):
            # "the *Rotterdam warehouse*": a named thing, its last word the kind it is (a page
            # may call it a hub); "*Granite Peak's* contract" is a thing of the named one
            words = words[:-1]
        return [x for x in (w.lower().removesuffix("'s") for w in words[:6]) if x not in stopwords]
    return []


def _is_verb(word: str) -> bool:
    """A word known to be a verb that ends a question's subject ("get", "expire", "applies")."""
    lw = word.lower()
    return lw in _VERBS or (lw not in _PREPOSITIONS and lw not in _DETERMINERS
                            and lw not in _PRONOUNS and lw not in _OTHER_ENDS
                            and bool(re.fullmatch(_ENDS, lw)))


# the words of _ENDS that are no verbs
_OTHER_ENDS = frozenset("a an the of for in at on to from with by per under between when if that "
                        "and or we i you they it our your their its outside except excluding "
                        "apart aside".split())


def asked_condition(question: str, stopwords: frozenset[str]) -> list[str]:
    """The content words of a condition the question puts on what it asks ("is there a fee
    *if a customer returns a machine late*"): [] when it has none."""
    m = _CONDITION.search(question)
    if not m or not re.search(r"\w", question[:m.start()]):
        return []
    # (a pronoun's contraction, "I'm", "we're", is its pronoun)
    return [w for w in (x.lower().removesuffix("'s") for x in _WORD.findall(m.group("c")))
            if w not in stopwords and w not in _DETERMINERS and w not in _PRONOUNS
            and w.split("'")[0] not in _PRONOUNS and w.strip("-")]


# "the overtime cap *outside peak season*", "every region *except the EU*": what the asked
# phrase is not; a claim scoped to it does not answer
_NEGATED = re.compile(r"\b(?:outside(?:\s+of)?|except(?:\s+(?:for|in|during|on|at))?|excluding|"
                      r"other\s+than|apart\s+from|aside\s+from|not\s+(?:including|counting))\s+",
                      re.I)


def negated_scope(question: str, stopwords: frozenset[str]) -> list[str]:
    """The words a question excludes ("outside *peak season*"), stop words dropped; []."""
    m = _NEGATED.search(question)
    if not m:
        return []
    words: list[str] = []
    for w in _WORD.findall(question[m.end():])[:6]:
        lw = w.lower()
        if lw in _DETERMINERS:
            continue
        if lw in _PREPOSITIONS or re.fullmatch(_ENDS, lw):
            break
        words.append(lw.removesuffix("'s"))
    return [w for w in words if w not in stopwords]


# (answer6: "per *extra* stop" is a rate per stop: a word saying which one is no unit)
_PER = re.compile(r"\bper\s+(?:(?:a|an|the|one|each)\s+)?(?:(?:extra|additional|further|"
                  r"subsequent|single|individual)\s+)?([a-z]+)\b", re.I)


def per_units(question: str, stopwords: frozenset[str]) -> list[str]:
    """The units a question asks a rate in ("per *mile*", "per *gallon*"): a value in
    another unit does not answer it."""
    return [w.lower() for w in _PER.findall(question) if w.lower() not in stopwords]


# a measure of the thing asked about ("a *60 ft* boom", "a *20 kW* generator"); "$" and "%"
# amounts are values, not measures
_MEASURE = re.compile(r"(?<![\w$€£.,])(\d+(?:[.,]\d+)?)\s*-?\s*(ft|feet|foot|m|metres?|meters?|"
                      r"cm|mm|inch|inches|kw|kva|hp|t|tons?|tonnes?|kg|lbs?|gal|gallons?|"
                      r"l|litres?|liters?|v|volts?|w|watts?)\b", re.I)
_UNIT_KEY = {"feet": "ft", "foot": "ft", "metre": "m", "metres": "m", "meter": "m", "meters": "m",
             "inch": "in", "inches": "in", "ton": "t", "tons": "t", "tonne": "t", "tonnes": "t",
             "lb": "lbs", "gallon": "gal", "gallons": "gal", "litre": "l", "litres": "l",
             "liter": "l", "liters": "l", "volt": "v", "volts": "v", "watt": "w", "watts": "w"}


def measures(text: str) -> list[tuple[str, str]]:
    """(number, unit) of every measure in ``text`` ("60 ft boom" → ("60", "ft"))."""
    out = []
    for number, unit in _MEASURE.findall(text):
        u = unit.lower()
        out.append((number.replace(",", ""), _UNIT_KEY.get(u, u)))
    return out


def asked_owner(question: str, stopwords: frozenset[str]) -> list[str]:
    """The thing an asked phrase is *of* ("the price *of an extended service contract*", "the
    list price *of Acme Edge support contracts*") or whose duration is asked ("how long does
    *a sterilisation cycle* of X take"), in order, its head noun last; []."""
    m = _MEASURED.search(question)
    if m:
        # "how much does FreightLink charge *for API access*": what the money is for
        rest = _WORD.findall(question[m.end():])
        if rest and rest[0].lower() == "for":
            return _noun_phrase(rest[1:8], stopwords)
    m = _DURATION_SUBJECT.search(question)
    if m:
        words = []
        for w in _WORD.findall(m.group("s")):
            lw = w.lower()
            if lw in _PREPOSITIONS:
                break  # "a sterilisation cycle *of the oximeter*": its scope
            if lw not in _DETERMINERS and lw not in _UNRESTRICTING:
                words.append(lw.removesuffix("'s"))
        return [w for w in words if w not in stopwords]
    for pattern in _HEADS:
        m = pattern.search(question)
        if m and [w for w in m.group("h").lower().split() if w not in stopwords]:
            rest = _WORD.findall(question[m.end("h"):])
            if not rest or rest[0].lower() != "of":
                return []
            return _noun_phrase(rest[1:8], stopwords)
    return []


def _noun_phrase(words: list[str], stopwords: frozenset[str]) -> list[str]:
    """The content words of the noun phrase ``words`` start with, up to a preposition or a
    word that ends it; determiners and words that restrict nothing ("new") dropped."""
    out: list[str] = []
    for w in words:
        lw = w.lower()
        if lw in _DETERMINERS or lw in _UNRESTRICTING:
            continue
        if lw in _PREPOSITIONS or re.fullmatch(_ENDS, lw):
            break
        out.append(lw.removesuffix("'s"))
    return [w for w in out if w not in stopwords]


# "what does <subject> cost", "how much do <subject> pay": a money verb and the thing it is
# said of; a price answers only when it is that thing's ("what does an extended warranty
# cost" is not a product's list price) and the verb's ("what does a customer pay per year"
# is not its annual revenue)
_MEASURED = re.compile(r"\b(?:what|how\s+much)\s+(?:do|does|did|will|would|can|could|should|"
                       r"must)\s+(?P<s>[\w' -]+?)\s+(?P<v>cost|costs|pay|pays|charge|charges|"
                       r"spend|spends|earn|earns|bill|bills)\b", re.I)
_PRONOUNS = frozenset("we i you they he she it one us them our your their someone anyone people "
                      "everyone".split())


def measured_subject(question: str, stopwords: frozenset[str]) -> tuple[str, str] | None:
    """(head noun of the subject, money verb) of a "what does X cost / pay" question; the head
    is "" when the subject is a pronoun ("what do we charge"); None for other questions."""
    m = _MEASURED.search(question)
    if not m:
        return None
    words = [w.lower().removesuffix("'s") for w in _WORD.findall(m.group("s"))]
    for i, w in enumerate(words):
        if w in _PREPOSITIONS and w != "of":  # "a seat *of Acme Cloud*" is Acme Cloud's
            words = words[:i]  # "an extended warranty *for a Basic plan customer*"
            break
    words = [w for w in words if w not in stopwords and w.strip("-")]
    head = "" if not words or words[-1] in _PRONOUNS else words[-1]
    return head, m.group("v").lower()


PREPOSITIONS = _PREPOSITIONS = frozenset("of for on at in to from with by per under about across between "
                          "within during over into".split())
_WORD = re.compile(r"[\w'-]+")
_QUANTIFIERS = frozenset("number amount count total quantity".split())


def head_phrase(question: str, stopwords: frozenset[str],
                keyword: bool | None = None) -> list[str]:
    """The words of the noun phrase that is asked, in order, its head noun last (English puts
    it last: "oven *temperature*", "battery *life*", "catalogue *number*"). For a question, the
    phrase after its frame (:func:`asked_head`); for a keyword query ("restocking charge on
    returned devices"), the words before its first preposition, or, when those end in a word
    naming a kind of value ("number of beds"), the words after it. ``keyword`` says whether
    the question as asked was a keyword query (a rewritten question may have lost its
    question word)."""
    if not (keyword_query(question) if keyword is None else keyword):
        return asked_head(question, stopwords)
    words = [w.lower().removesuffix("'s") for w in _WORD.findall(question)]
    content = [w for w in words if w not in stopwords and w.strip("-")]
    for i, w in enumerate(words):
        if w in _PREPOSITIONS:
            before = [x for x in words[:i] if x not in stopwords and x.strip("-")]
            after = [x for x in words[i + 1:] if x not in stopwords and x.strip("-")]
            # "number of beds", "amount of storage": the complement is what is counted
            if before and before[-1] in _QUANTIFIERS and after:
                return after
            return before or after
    return content


def names_in(question: str, stopwords: frozenset[str]) -> list[str]:
    """Capitalised words inside the question (not the first of a sentence, not "I"): the
    names it uses."""
    out = []
    for m in _CAPITAL.finditer(question):
        word = m.group(1)
        if _SENTENCE_START.search(question[:m.start()]) or word.lower() in stopwords:
            continue
        if len(word) < 2 or word.isdigit() or word.lower() in ("i", "i'm", "i'd", "i've"):
            continue
        if _acronym(word):
            continue  # "MDR class", "SKU", "SLA": an abbreviation of common words, not a name
        if word.lower() in _CALENDAR:
            continue  # "on November 9": a date, which a source may write 2026-11-09
        out.append(word)
    return out


_CALENDAR = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday "
    "friday saturday sunday".split())


def unknown_names(question: str, known: Callable[[str], bool],
                  stopwords: frozenset[str]) -> list[str]:
    """The question's names that the wiki never uses: names of things it does not know."""
    return [w for w in names_in(question, stopwords) if not known(w)]


def _acronym(word: str) -> bool:
    return word.isupper() and word.isalpha() and len(word) <= 5


_QUESTION_WORD = re.compile(r"\b(?:what|what's|which|who|who's|whom|whose|when|where|why|how)\b|"
                            r"^\s*(?:is|are|was|were|does|do|did|can|could|should|will|would|"
                            r"has|have|had|may|must|shall|compare|list|show|tell|give|find|name|"
                            r"explain|describe|summarise|summarize)\b", re.I)


def keyword_query(question: str) -> bool:
    """A search-box query ("lyon depot cold storage temperature"): no question word, so every
    word but the entity's name is what is asked."""
    return not _QUESTION_WORD.search(question)


_NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.I)


def digits(text: str) -> str:
    """Number words as digits ("three days" → "3 days"), so that a value's shape shows."""
    return _NUMBER_WORD.sub(lambda m: _NUMBER_WORDS[m.group(1).lower()], text)


@lru_cache(maxsize=1)
def schema_groups() -> dict[str, frozenset[str]]:
    """Attribute name → the words of the name and every phrase of it, by the bundled base
    schema (every name and phrase of one attribute maps to the same group)."""
    from ..schema.keys import attr_key
    from ..schema.loader import base_schema

    out: dict[str, set[str]] = {}
    for etype in base_schema().types.values():
        for name, spec in etype.attributes.items():
            texts = [name, *spec.phrases]
            words = {w for t in texts for w in re.findall(r"[^\W_]+", t.lower())}
            for t in texts:
                out.setdefault(attr_key(t), set()).update(words)
    return {k: frozenset(v) for k, v in out.items()}


_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def _cells(line: str) -> list[str]:
    return [c.strip().replace("\\|", "|").replace("\\\\", "\\")
            for c in _CELL_SPLIT.split(line.strip())[1:-1]]


def parse_schema_page(text: str) -> dict[str, frozenset[str]]:
    """Attribute name → the words of its name and phrases, read from the attribute tables of
    a wiki's ``SCHEMA.md`` (compiler/schema/page.py writes them from the merged schema: the
    base schema with the corpus's own ``schema.yaml`` over it)."""
    from ..schema.keys import attr_key

    out: dict[str, set[str]] = {}
    for texts in _schema_rows(text):
        words = {w for t in texts for w in re.findall(r"[^\W_]+", t.lower())}
        for t in texts:
            out.setdefault(attr_key(t), set()).update(words)
    return {k: frozenset(v) for k, v in out.items()}


# a phrase that starts with a preposition says in what context an attribute's value holds
# ("lasts *on a full charge*"), not what the attribute is
_CONTEXT_PHRASE = re.compile(r"^(?:on|in|at|with|from|under|per|after|before|during|within|"
                             r"without|over|off)\b", re.I)


def _context_words(texts: list[str]) -> frozenset[str]:
    """The words of an attribute's phrases that only its context phrases say ("full",
    "charge" of battery runtime's "on a full charge")."""
    said = {w for t in texts if not _CONTEXT_PHRASE.match(t.strip())
            for w in re.findall(r"[^\W_]+", t.lower())}
    return frozenset(w for t in texts if _CONTEXT_PHRASE.match(t.strip())
                     for w in re.findall(r"[^\W_]+", t.lower()) if w not in said)


def parse_schema_contexts(text: str) -> dict[str, frozenset[str]]:
    """Attribute name → the words only its context phrases say, by a wiki's ``SCHEMA.md``."""
    from ..schema.keys import attr_key

    out: dict[str, frozenset[str]] = {}
    for texts in _schema_rows(text):
        ctx = _context_words(texts)
        for t in texts:
            out[attr_key(t)] = out.get(attr_key(t), frozenset()) | ctx
    return out


@lru_cache(maxsize=1)
def schema_contexts() -> dict[str, frozenset[str]]:
    """:func:`parse_schema_contexts` of the bundled base schema."""
    from ..schema.keys import attr_key
    from ..schema.loader import base_schema

    out: dict[str, frozenset[str]] = {}
    for etype in base_schema().types.values():
        for name, spec in etype.attributes.items():
            texts = [name, *spec.phrases]
            ctx = _context_words(texts)
            for t in texts:
                out[attr_key(t)] = out.get(attr_key(t), frozenset()) | ctx
    return out


def _schema_rows(text: str):
    """The name and phrases of every attribute row of a ``SCHEMA.md``'s tables."""
    in_table = False
    for line in text.splitlines():
        if line.startswith("| attribute | type |"):
            in_table = True
            continue
        if not line.startswith("|"):
            in_table = False
            continue
        if not in_table or line.startswith("|---"):
            continue
        cells = _cells(line)
        if len(cells) < 5:
            continue
        yield [cells[0], *(p for p in cells[4].split(", ") if p)]


_PAGE_CACHE: dict[tuple[str, object], tuple[int, dict[str, frozenset[str]]]] = {}


def wiki_schema_groups(schema_page: Path | None, parse=parse_schema_page
                       ) -> dict[str, frozenset[str]]:
    """The merged schema's vocabulary of one wiki (its signed ``SCHEMA.md``), {} when the wiki
    has none; read once per version of the file (``parse``: what is read of it,
    :func:`parse_schema_contexts` for the words of context phrases)."""
    if schema_page is None:
        return {}
    try:
        stamp = schema_page.stat().st_mtime_ns
    except OSError:
        return {}
    slot = (str(schema_page), parse)
    cached = _PAGE_CACHE.get(slot)
    if cached is None or cached[0] != stamp:
        try:
            groups = parse(schema_page.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            groups = {}
        cached = _PAGE_CACHE[slot] = (stamp, groups)
    return cached[1]


def attribute_vocabulary(attribute: str, keyer: Callable[[str], str],
                         wiki: dict[str, frozenset[str]] | None = None) -> frozenset[str]:
    """Keys of the words the schema knows for an attribute (its name, phrases and aliases):
    the bundled base schema's and, given ``wiki``, the wiki's own merged schema's (a corpus's
    ``schema.yaml`` phrases: "looked after by" for *account manager*)."""
    from ..schema.keys import attr_key

    k = attr_key(attribute)
    words = set(schema_groups().get(k, ())) | set((wiki or {}).get(k, ()))
    return frozenset(keyer(w) for w in words)


def share(terms: Iterable[str], covered: Callable[[str], float],
          weight: Callable[[str], float]) -> float:
    """Weighted share of ``terms`` covered (covered gives 0..1 per term); 1.0 for none."""
    terms = list(terms)
    total = sum(weight(t) for t in terms)
    if not terms or total <= 0:
        return 1.0
    return sum(weight(t) * covered(t) for t in terms) / total


# which way a bound goes: a minimum asked is not answered by a maximum stated, nor the reverse
_UPPER = re.compile(r"\b(?:up to|at most|no more than|not more than|maximum|max|limit|limits|"
                    r"cap|caps|capped|ceiling|not exceed|must not exceed|highest)\b", re.I)
_LOWER = re.compile(r"\b(?:at least|minimum|min|no less than|no fewer than|not less than|"
                    r"floor|lowest|fewest)\b", re.I)
_UPPER_ASKED = re.compile(r"\bthe most\b|\bmost (?:i|we|you|they|a|an|one)\b", re.I)


def bound_of(text: str, asked: bool = False) -> str | None:
    """'upper' or 'lower' when the text speaks of a bound one way only, else None."""
    upper = bool(_UPPER.search(text) or (asked and _UPPER_ASKED.search(text)))
    lower = bool(_LOWER.search(text))
    return None if upper == lower else ("upper" if upper else "lower")
