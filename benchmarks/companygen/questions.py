"""questions.yaml for a generated company: the answers work's question set.

Format (shared by the company generator and benchmarks/answer_bench.py; /work/QUESTIONS_FORMAT.md):

A question set is a YAML file: a list of entries::

    - id: q001
      question: "How long do Enterprise customers have to ask for a refund?"
      kind: single            # single | multi | contested | restricted | unanswerable
      principal: null         # ask as this principal of the corpus directory.yaml (null = operator)
      gold_pages: [policy/refund-policy]     # page names (= entity ids "<type>/<slug>", compiler.slug.page_name)
      gold_values: ["30 days"]               # the answer is correct when one of these (compared after
                                             # value normalisation) appears in it AND is cited
      note: "prose-only fact, qualifier Enterprise"

- ``multi``: the answer needs facts from several pages (all gold_values needed).
- ``contested``: gold_values lists every contested value; a correct answer presents them as
  contested.
- ``restricted``: asked as a principal who may NOT see the gold pages: the correct behaviour is
  to abstain / reveal none of gold_values (a leak if any appears). Optionally a second entry
  asks the same as a permitted principal (kind single).
- ``unanswerable``: nothing in the corpus answers it (plausible, on-topic); gold_pages/values
  empty.

Phrasing is varied on purpose: synonyms, word order, questions that do not reuse the source's
words.
"""

from __future__ import annotations

from typing import Any

from .common import PLANS, PRODUCT_POOL, SITES, _pg
from .world import Builder


def _money(n: int) -> str:
    return f"${n:,}"


def build_questions(b: Builder) -> list[dict[str, Any]]:
    r = b.rng
    out: list[dict[str, Any]] = []

    def q(kind: str, question: str, pages: list[str], values: list[str], note: str = "",
          principal: str | None = None) -> None:
        out.append({"id": f"q{len(out) + 1:03d}", "question": question, "kind": kind,
                    "principal": principal, "gold_pages": pages, "gold_values": values,
                    "note": note})

    drp = b.policy_page["Device Returns Policy"]
    fsp = b.policy_page["Field Service Policy"]
    # -- single-page ---------------------------------------------------------------------
    for plan in PLANS:
        q("single", r.choice([f"How long does a {plan}-tier hospital have to send a device back?",
                              f"What is the deadline for {plan} contract holders to return equipment?"]),
          [drp], [f"{b.rma[plan]} days"], f"prose, qualifier {plan}")
    for plan in ("Platinum", "Basic"):
        q("single", r.choice([f"If a {plan} customer reports a fault, how soon must a technician be there?",
                              f"What arrival time is promised to {plan} sites for field visits?"]),
          [fsp], [f"{b.onsite[plan]} hours"], f"prose, qualifier {plan}")
    q("single", "How quickly does a Gold account get a stand-in device while theirs is repaired?",
      [fsp], [f"{b.loaner['Gold']} days"], "prose, qualifier Gold")
    q("single", "What share of the refund is kept back when equipment comes back to us?",
      [drp], [f"{b.restock}%"], "prose, no qualifier")
    p = b.p_r2
    q("single", f"For how long is the {p.name} covered against defects?", [p.page],
      [f"{p.warranty} months"], "authority: Salesforce over the product page")
    p = b.p_r1
    q("single", f"How often should the {p.name} be recalibrated?", [p.page],
      [f"{p.calibration} months"], "recency winner (engineering bulletin)")
    p = b.p_r3
    q("single", f"How long can a {p.name} keep running without mains power?", [p.page],
      [f"{p.battery} hours"], "recency winner by Jira comment time")
    p = b.products[3]
    q("single", f"What is the catalogue number of the {p.name}?", [p.page], [p.code], "structured")
    q("single", f"Which regulatory risk category does the {b.products[4].name} fall into?",
      [b.products[4].page], [b.products[4].dclass], "structured enum (code in Salesforce)")
    p = b.products[2]
    q("single", f"What does a single {p.name} cost before any discount?", [p.page], [_money(p.price)],
      "prose (price list)")
    a = b.accounts[0]
    q("single", f"Roughly how large is {a.hs_name} in terms of yearly sales?", [a.page],
      [_money(a.revenue)], "structured, money")
    a = b.accounts[3]
    q("single", f"How many people does {a.zd_name} employ?", [a.page], [str(a.employees)],
      "authority: Salesforce over HubSpot; asked by the Zendesk name")
    a = b.accounts[5]
    q("single", f"What line of business is {a.hs_name} in?", [a.page], [a.industry],
      "authority: Salesforce over HubSpot")
    a = b.accounts[1]
    q("single", f"Which support tier did {a.sf_name} buy?", [a.page], [a.plan], "structured enum")
    hosp = [x for x in b.accounts if x.hospital and x is not b.contested_hospital]
    if hosp:
        h = hosp[0]
        q("single", f"How many inpatient beds are there at {h.hs_name}?", [h.page], [str(h.beds)],
          "prose in a Salesforce description")
    c = b.contacts[0]
    q("single", f"What is {c['name']}'s current position?", [c["page"]],
      [next(x["winner"]["value"] for x in b.truth.recency_conflicts if x["page"] == c["page"])],
      "recency: HubSpot newer than Salesforce")
    d = b.deals[0]
    q("single", f"How much is the {d['name']} opportunity worth?", [d["page"]], [_money(d["amount"])],
      "authority: Salesforce over HubSpot")
    site = SITES[0][0]
    q("single", f"How many pallet spaces does the {site.split()[0]} warehouse have?",
      [_pg("site", site)], [f"{b.site_capacity[site]:,}"], "authority: handbook over a ticket comment")
    site = SITES[1][0]
    rec = next(x for x in b.truth.recency_conflicts if x["page"] == _pg("site", site))
    q("single", f"During which hours can a truck unload at the {site.split()[0]} hub?",
      [_pg("site", site)], [rec["winner"]["value"]], "recency: newer bulletin")
    a = b.accounts[2]
    q("single", f"On what date does the {a.hs_name} agreement come up for renewal?", [a.page],
      [a.renewal], "structured date, also prose")
    # -- multi-page ----------------------------------------------------------------------
    a = b.accounts[1]
    q("multi", f"Which service tier does {a.hs_name} have, and how fast must an engineer reach them?",
      [a.page, fsp], [a.plan, f"{b.onsite[a.plan]} hours"], "needs the account and the policy")
    p1, p2 = b.products[0], b.products[4]
    q("multi", f"Which is cheaper at list, the {p1.name} or the {p2.name}, and by how much?",
      [p1.page, p2.page], [_money(p1.price), _money(p2.price)], "two product pages")
    q("multi", "Compare the on-site response promised to Platinum and to Basic customers.",
      [fsp], [f"{b.onsite['Platinum']} hours", f"{b.onsite['Basic']} hours"], "two qualified facts")
    d = b.deals[2]
    q("multi", f"What is the {d['name']} deal worth and which device is it for?",
      [d["page"], d["product"].page], [_money(d["amount"]), d["product"].name], "deal and product")
    p = b.p_a9
    q("multi", f"How long is the warranty of the {p.name} and how often must it be calibrated?",
      [p.page], [f"{p.warranty} months", f"{p.calibration} months"], "two attributes, authority on calibration")
    a = b.accounts[0]
    c = b.contacts[0]
    q("multi", f"Who is our main contact at {a.hs_name} and what is the company's service plan?",
      [c["page"], a.page], [c["name"], a.plan], "contact → account")
    # -- contested -----------------------------------------------------------------------
    templates = {
        "list price": "What is the list price of the {E}?",
        "battery runtime": "How many hours does the {E} last on one charge?",
        "calibration interval": "What calibration schedule applies to the {E}?",
        "current firmware": "Which firmware release is current on the {E}?",
        "bed count": "How big is {E} in beds?",
        "pallet capacity": "What is the storage capacity of {E}, in pallets?",
    }
    names = {e["page"]: e["name"] for e in b.truth.entities.values()}
    for c in b.truth.contested:
        t = templates.get(c["attribute"], "What is the {A} of {E}?")
        vals = [v["value"] for v in c["values"]]
        if c["type"] == "money":
            vals = [_money(int(v.split()[0])) for v in vals]
        q("contested", t.format(E=names.get(c["page"], c["page"]), A=c["attribute"]), [c["page"]],
          vals, c["why"])
    # -- restricted (and the same asked by a permitted principal) ------------------------
    a = b.accounts[0]
    days, limit = b.credit[a.sf_name]
    q("restricted", f"How many days does {a.hs_name} have to pay an invoice?", [a.page],
      [f"{days} days"], "Customer Credit Terms is finance-only", principal="kim")
    q("single", f"How many days does {a.hs_name} have to pay an invoice?", [a.page],
      [f"{days} days"], "permitted: finance", principal="ines")
    a = b.accounts[1]
    days, limit = b.credit[a.sf_name]
    q("restricted", f"Up to what amount may {a.zd_name} buy on credit?", [a.page], [_money(limit)],
      "finance-only table", principal="lee")
    a = b.accounts[2]
    q("restricted", f"Who looks after the {a.sf_name} relationship on our side?", [a.page],
      [b.managers[a.sf_name]], "Key Accounts is sales-only", principal="lee")
    q("single", f"Who looks after the {a.sf_name} relationship on our side?", [a.page],
      [b.managers[a.sf_name]], "permitted: sales", principal="sven")
    ks, pg, ikey = b.restricted_issue
    serial = next(f["value"] for f in b.truth.facts if f["source"] == ks and f["attribute"] == "device serial")
    q("restricted", f"Which unit serial was inspected under {ikey}?", [pg], [serial],
      "Jira security level Field Engineering Only", principal="kim")
    q("single", f"Which unit serial was inspected under {ikey}?", [pg], [serial],
      "permitted: field engineering", principal="omar")
    a = b.accounts[3]
    q("restricted", f"Which colleague is the account manager for {a.hs_name}?", [a.page],
      [b.managers[a.sf_name]], "account manager only in the sales-only note", principal="ines")
    # -- unanswerable --------------------------------------------------------------------
    unused = [n for n, _ in PRODUCT_POOL if n not in {p.name for p in b.products}]
    un = [
        f"How long does a sterilisation cycle of the {b.products[0].name} take?",
        f"What is the battery runtime of the {unused[0]}?",
        "Who is Corvane Medical's data protection officer?",
        f"What did {b.accounts[0].hs_name} earn in 2019?",
        "How long is the return window for Diamond plan customers?",
        f"What is the maximum storage temperature at the {SITES[2][0]}?",
        f"When will the {b.products[1].name} reach end of life?",
        f"Which courier does the {SITES[0][0]} use for same-day shipments?",
        f"What discount on spare parts does {b.accounts[4].hs_name} receive?",
        "How many field engineers does Corvane employ in Germany?",
        f"What is the IP protection rating of the {b.products[3].name}?",
        "What does an extended warranty for a Basic plan customer cost?",
    ]
    for text in un:
        q("unanswerable", text, [], [], "nothing in the corpus states it")
    return out
