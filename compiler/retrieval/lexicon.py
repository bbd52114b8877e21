"""A small generic English lexicon: everyday synonyms and phrase rewrites of questions.

No offline lexical resource (WordNet data, a spaCy model) is installed on the machines Folio
runs on, and a question's paraphrases of business attributes are few and stable, so they are
listed here: groups of words one question may use for another's ("battery *life*" for
*runtime*, "risk *category*" for *class*, "sales *rep*" for *manager*, "catalogue
*number*" for *code*), and phrases rewritten to the word sources use ("without mains power" is
"on battery", "looks after" is "manages"). Nothing here is a corpus's own word: each entry is
everyday English, and the corpus's own vocabulary comes from its schema
(:func:`compiler.retrieval.coverage.wiki_schema_groups`).
"""

from __future__ import annotations

import re

# groups of words a question may use for one another's in an attribute's name (not in free
# text, where "managed service" is no manager): "battery *life*" asks a *battery runtime*,
# "account *owner*" an *account manager*, "catalogue *number*" a *product code*
ATTRIBUTE_GROUPS = (
    "runtime life endurance autonomy run",
    "class category classification",
    "manager owner rep representative",
    "code number id identifier",
    "catalogue catalog part article sku",
    "payment settlement",
    "interval frequency schedule cadence",
    "product device model",
    # a contract's renewal date is when its term ends or expires
    "renewal expiry expiration expire end",
)
# Groups of everyday business synonyms (generic, no corpus's own vocabulary): a
# question's word also matches the others of its group, at a discount.
SYNONYM_GROUPS: tuple[str, ...] = (
    "cost price pricing fee charge", "client customer", "login logon signin sign sso",
    "boss manager head lead run", "employee staff headcount worker workforce",
    "deal opportunity", "refund reimbursement reimburse", "fail failure error broken",
    "outage incident downtime", "begin start effective", "owner owns responsible",
    "bug defect", "contract agreement", "firm company organisation organization",
    "cancel terminate", "deliver ship send", "phone telephone", "email mail",
    "salary pay compensation", "guarantee warranty", "size amount",
    "approve approval sign-off signoff authorise authorize",
    "limit cap maximum max ceiling", "allowance stipend budget", "day daily", "week weekly",
    "month monthly", "year annual yearly", "night nightly", "hour hourly",
    "food meal", "travel trip journey", "keep retain retention store",
    "supplier supply provider vendor", "old age", "kilometre kilometer km",
    "kilogram kilo kg", "mile mileage", "minute min", "quantity qty", "number count",
    "remote home", "open opening", "closed close", "phone extension",
    "sev severity", "react respond response reply", "sector industry vertical",
    "guarantee warranty cover coverage", "uptime availability sla",
    "datacenter datacentre region centre center", "percent percentage",
    "deadline window", "equipment device hardware", "catalogue catalog sku code",
    "position title role job", "revenue sales turnover", "worth amount value",
    "plan tier level subscription", "loaner replacement substitute",
    "cold chilled refrigerated refrigeration fridge",
    "break pause rest",
    "dispatch ship shipping",
    "student pupil kid child learner", "affect affected impact impacted",
    "delete erase wipe purge", "ask request", "shipment consignment parcel",
    "carrier haulier haulage hauler", "cause because reason",
)
# everyday paraphrases of what policies and postmortems say (kept apart from the groups above
# so that merges stay easy): "was the platform *down*" asks an *outage*, a *stolen* machine a
# *theft*, "car mileage *payback*" a *reimbursement*, "is there a *cutoff*" a *deadline*
PARAPHRASE_GROUPS: tuple[str, ...] = (
    "outage down downtime unavailable unavailability",
    "theft stolen steal",
    "refund reimbursement payback repay",
    "cutoff deadline",
    "unload unloading dock docking receiving",
    "trail history",
    "free included complimentary",
    "increase rise raise hike uplift",
    # a list price is a list rate; a tariff is a price list
    "price rate tariff",
    "vacation pto leave",
    # a per diem is a daily allowance
    "allowance diem",
    "payout pay",
    # an answer to a message is a reply ("how soon should they expect an answer")
    "reply answer",
    # a service level agreement is what a vendor guarantees ("the uptime *guarantee*")
    "sla guarantee guaranteed commitment promise promised",
    # the firmware or release running now is the latest one ("the *latest* firmware")
    "current latest newest",
)
SYNONYM_GROUPS = SYNONYM_GROUPS + PARAPHRASE_GROUPS
# a preamble before an embedded question ("I'm writing a report and can't remember how many
# trucks are electric"): no part of what is asked
PREAMBLE = re.compile(r"^.*?\b(?:remember|recall|know|sure|wonder|wondering|forgot|forget|"
                      r"find\s+out|tell\s+me|check|asking|ask)\s+(?=(?:how|what|which|who|when|"
                      r"where)\b)", re.I | re.S)
# multi-word phrases of questions rewritten to the words sources use
PHRASES = (
    # (answer5) how far back records can be pulled, seen or exported is how long they are
    # kept ("how far back can customers pull temperature records": their retention period)
    (re.compile(r"\bhow\s+far\s+back\s+(?:[\w'-]+\s+){0,4}?"
                r"(?:pull|get|see|view|access|retrieve|export|download|look\s+up|go)\b", re.I),
     "how long do we keep"),
    # (answer5) how long before a lock, a block or a hold clears on its own is how long it
    # lasts: the clearing is no event a source names ("locks the account for 30 minutes")
    (re.compile(r"\bhow\s+long\s+(?:before|until|till)\s+((?:[\w'-]+\s+){0,3}?)"
                r"(?:clears?|lifts?|expires?|resets?|unlocks?|wears?\s+off|goes\s+away|"
                r"releases?)(?:\s+(?:on\s+its\s+own|by\s+itself|automatically|itself))?\b",
                re.I), r"how long is \1"),
    # (answer5) why something quit, failed or went down asks its cause: what an incident's
    # "root cause" or a sentence's "because …" says, not when it happened
    (re.compile(r"\bwhy\s+(?:did|does|do|would|has|had|was|were|is)\s+(.+?)\s+(?:quit|fail|"
                r"failed|stop|stopped|break|broke|broken|die|died|crash|crashed|shut\s+down|"
                r"shut\s+off|cut\s+out|go\s+down|went\s+down|break\s+down|broke\s+down|"
                r"trip|tripped|go\s+offline|went\s+offline)\b", re.I),
     r"what was the root cause when \1 failed"),
    (re.compile(r"\bin charge of\b", re.I), "manager of"),
    (re.compile(r"\bresponsible for\b", re.I), "owner of"),
    (re.compile(r"\bhow many people\b", re.I), "number of employees"),
    (re.compile(r"\bsign[- ]?in\b|\blog[- ]?in\b", re.I), "login"),
    (re.compile(r"\b(send|bring|give|ship|take)s? (\w+ ){0,3}?back\b", re.I), "return"),
    # something that comes (or is brought) back is returned ("when a machine comes back low
    # on fuel")
    # (not a person coming back from a trip, nor a system "back up")
    (re.compile(r"\b(?:comes?|came|coming)\s+back\b(?!\s+(?:from|to|up|on|online|in)\b)",
                re.I), "returned"),
    (re.compile(r"\bline of business\b", re.I), "industry"),
    # "how much time do I have to …" asks a duration like "how long": "time" names no attribute
    (re.compile(r"\bhow\s+much\s+time\b", re.I), "how long"),
    (re.compile(r"\bstand[- ]in\b", re.I), "replacement"),
    # a price tag is a price ("what's the price tag on X")
    (re.compile(r"\bprice[- ]tags?\b", re.I), "price"),
    # abbreviations of units ("hrs on battery", "24 mins")
    (re.compile(r"\bhrs?\b\.?", re.I), "hours"),
    (re.compile(r"\bmins\b\.?", re.I), "minutes"),
    (re.compile(r"\bsecs?\b\.?", re.I), "seconds"),
    (re.compile(r"\byrs?\b\.?", re.I), "years"),
    (re.compile(r"\bwks?\b\.?", re.I), "weeks"),
    (re.compile(r"\b(?:without|off|away from)\s+(?:the\s+)?(?:mains|wall|grid|external)"
                r"(?:\s+(?:power|electricity|supply|socket))?\b|\bunplugged\b|\bcordless\b",
                re.I), "on battery"),
    (re.compile(r"\blook(?:s|ed|ing)?\s+after\b", re.I), "manages"),
    # a product's end of life is its retirement, not how long its battery lasts
    (re.compile(r"\bend[- ]of[- ](?:life|support|sale)\b", re.I), "retirement"),
    (re.compile(r"\bkeeps?\s+(?:going|running|working)\b", re.I), "runs"),
    # a lease, contract or licence that runs out expires (not "who runs the depot")
    (re.compile(r"\b(?:run|runs|ran|running)\s+out\b", re.I), "expires"),
    # a request wrapped around the question ("I'd like to know the …", "can you tell me …")
    # is no part of what is asked: left in, its words would be taken for the asked head
    # (answer6) … after a greeting that says who asks ("Owen here.", "This is Priya,")
    (re.compile(r"^\s*(?:(?:hi|hey|hello|quick question|quick one|[\w'-]+\s+here|this\s+is\s+"
                r"[\w'-]+)\W+)*(?:please\s+)?"
                r"(?:i'?d\s+like\s+to\s+know|i\s+would\s+like\s+to\s+know|i\s+(?:want|need)"
                r"\s+to\s+know|i'?m\s+(?:trying\s+to\s+find\s+out|wondering)|i\s+wonder|"
                r"(?:can|could|would)\s+you\s+(?:please\s+)?(?:tell|remind)\s+me|"
                r"(?:please\s+)?(?:tell|remind)\s+me|do\s+you\s+(?:happen\s+to\s+)?know)"
                r"(?:\s+(?:of|about))?[\s,:]*", re.I), ""),
    # a question embedded in a preamble ("I'm writing a report and can't remember how many
    # trucks are electric"): the preamble is no part of what is asked
    (PREAMBLE, ""),
    (re.compile(r"\b(?:these\s+days|nowadays|at\s+the\s+moment|right\s+now|actually|"
                r"really|exactly)\b", re.I), ""),
    # the latest time something can be done is its cutoff ("the latest time an order can go
    # in and still ship the same day")
    (re.compile(r"\b(?:the\s+)?(?:latest|last\s+possible)\s+(?:time|hour|moment|point)\b",
                re.I), "the cutoff time"),
    # what something sells for is its price ("what do we sell the X for", "what does it go for")
    (re.compile(r"\bwhat\s+(?:do|does|did|would|will|can)\s+(?:we|you|they|i|it)\s+"
                r"(?:sell|retail|list|go|offer)\s+(.+?)\s+for\b", re.I), r"what is the price of \1"),
    (re.compile(r"\bwhat\s+(?:do|does|did|would|will)\s+(.+?)\s+(?:sell|sells|retail|retails|"
                r"go|goes)\s+for\b", re.I), r"what is the price of \1"),
    # being covered or guaranteed against defects is a warranty
    (re.compile(r"\b(?:covered|protected|guaranteed|insured)\s+(?:against|for)\s+"
                r"(?:manufacturing\s+)?(?:defects?|faults?|failures?|breakdowns?)\b", re.I),
     "under warranty"),
    (re.compile(r"\b(?:defect|fault)\s+(?:cover|coverage|protection)\b", re.I), "warranty"),
    # something thrown in for free is included free of charge ("FleetLink is included at no
    # charge"); "extra hands" are temporary staff
    (re.compile(r"\bthrown\s+in\b", re.I), "included"),
    (re.compile(r"\b(?:for\s+free|free\s+of\s+charge|at\s+no\s+(?:extra\s+|additional\s+)?"
                r"(?:cost|charge))\b", re.I), "free"),
    (re.compile(r"\b(?:extra|additional|more|temporary)\s+(?:pairs?\s+of\s+)?hands\b", re.I),
     "temporary staff"),
    # "did the committee sign off (on)" asks what it approved (not a sign-in)
    (re.compile(r"\bsign(?:s|ed|ing)?[- ]?off(?:\s+on)?\b", re.I), "approve"),
    # the hours one has to be online, available or reachable are the core hours
    (re.compile(r"\bwhen\s+(?:do|must|should|shall)\s+(?:i|we|you|staff|employees|people)\s+"
                r"(?:have\s+to\s+|need\s+to\s+)?be\s+(?:online|available|reachable|"
                r"contactable|logged\s+on|at\s+(?:my|our|your|their|the)\s+desks?)\b", re.I),
     "what are the core hours"),
    # the size of a deal, an order or a contract is its amount ("how big is the X deal",
    # "how large was the order"), not a physical size
    (re.compile(r"\bhow\s+(?:big|large|much)\s+(?:is|was|are|were)\s+((?:[\w'&.-]+\s+){0,8}?"
                r"(?:deal|opportunity|contract|order|sale|purchase|renewal|pilot|upgrade|"
                r"expansion)s?)\b", re.I), r"what is the amount of \1"),
    (re.compile(r"\bin\s+(?:us\s+)?(?:dollars|euros|pounds|usd|eur|gbp)\b", re.I), ""),
    # what someone does at an organisation is their job ("what does Priya do at X")
    (re.compile(r"\bwhat\s+(?:does|did)\s+(.+?)\s+do\s+(at|for|in)\b", re.I),
     r"what is the job title of \1 \2"),
    # who someone is with is the account (customer, company) they belong to ("which customer is
    # Kwame with")
    (re.compile(r"\b(which|what)\s+(customer|client|company|account|organi[sz]ation|firm)\s+"
                r"(?:is|was|does)\s+(.+?)\s+(?:with|from|at|work\s+(?:for|at))\s*(?=[?.!]|$)",
                re.I), r"what is the \2 account of \3"),
    # who handles an account manages it; "on our side" says whose side, not what is asked
    (re.compile(r"\bwho\s+(?:handles|handled|is\s+handling|takes\s+care\s+of)\b", re.I),
     "who manages"),
    (re.compile(r"\b(?:on|at)\s+our\s+(?:side|end)\b|\bfrom\s+our\s+side\b", re.I), ""),
    # a contract that needs renewing by a date has a renewal date
    (re.compile(r"\b(?:needs?|is\s+due|comes?\s+up)\s+(?:for\s+)?(?:renewing|renewal|"
                r"to\s+be\s+renewed|renewed)\b", re.I), "renewal"),
    # a contract that is up has run its term: its renewal date ("when is their contract
    # with us up"; not "up to", "up for sale")
    (re.compile(r"\b(contract|agreement|lease|licen[cs]e|subscription)((?:\s+with\s+\w+)?)"
                r"\s+up\b(?!\s+(?:to|for)\b)", re.I), r"\1\2 renewal"),
    # what came out of something followed from it ("the ticket that came out of the
    # postmortem"): no verb of what is asked
    (re.compile(r"\b(?:came|comes|come|grew|arose|arises|resulted|results|stemmed|stems)\s+"
                r"(?:out\s+of|from)\b", re.I), "from"),
    # what something costs "on top of" something else is an extra, not a thing of that scope
    # ("what does the waiver cost *on top of the rental*"): an idiom, not a place
    (re.compile(r"\b(?:on\s+top\s+of|over\s+and\s+above|in\s+addition\s+to)\b", re.I),
     "besides"),
    # what broke something, took it down, is what caused its outage ("what broke sign-in to
    # Classroom"): a cause asked, not a thing broken
    (re.compile(r"\bwhat\s+(?:broke|breaks|took\s+down|takes\s+down|brought\s+down|"
                r"knocked\s+out|killed)\b", re.I), "what was the cause of the outage of"),
    # "back in October", "back in 2025": only when
    (re.compile(r"\bback\s+(?=in\s+(?:\d{4}|january|february|march|april|may|june|july|"
                r"august|september|october|november|december|spring|summer|autumn|fall|"
                r"winter)\b)", re.I), ""),
    # who is working on (assigned to) a ticket is its assignee
    (re.compile(r"\bwho(?:'s|\s+is|\s+was)\s+(?:working\s+on|assigned\s+(?:to|on)|fixing)\b",
                re.I), "who is the assignee of"),
    # who holds a contract, an account or a plan is a customer ("Platinum contract holders")
    (re.compile(r"\b(?:contract|account|plan|policy|subscription|licen[cs]e)[- ]?holders?\b",
                re.I), "customers"),
)
