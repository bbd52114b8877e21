#!/usr/bin/env python3
"""Compile benchmark: a synthetic enterprise corpus, clean and incremental compile speed, peak RSS.

    python benchmarks/compile_bench.py                  # N = 10,000 and 100,000
    python benchmarks/compile_bench.py --n 10000 --keep --workdir /tmp/folio-bench
    python benchmarks/compile_bench.py --n 10000 --profile   # cProfile of the clean compile

For each N the corpus is generated in one subprocess and measured in another, so the peak RSS
reported is that of the compiles of one N alone. The corpus reuses the layout of
``examples/acme`` (its ``sources.yaml``, ``authority.yaml`` and ``directory.yaml`` verbatim) and
the real payload shapes of each system:

* ~20 % Confluence pages: Confluence Cloud REST v1 content lists (``results[]`` with
  ``body.storage``, ``version``, ``space``, ``metadata.labels``, ``restrictions``), 100 per file,
  one query per space (POL policies, PROD products and pricing, CS account plans);
* ~30 % Jira issues: REST v2 search responses (``startAt``, ``maxResults``, ``total``,
  ``names``, ``issues[]`` with ``comment.comments[]``), 100 per file;
* ~40 % Salesforce records: REST query responses (``totalSize``, ``done``, ``nextRecordsUrl``,
  ``records[]`` with ``attributes``), 200 per file: Product2, Account, Contact (``Account{attributes,
  Name}``), Opportunity (``Account`` and ``Primary_Product__r``); a few accounts also in the
  legacy org;
* ~10 % markdown docs with YAML frontmatter (``updated`` required) and ``[[wikilinks]]``.

Text uses the sentence shapes the offline extractor understands ("The X of <Entity> is Y.",
"X: Y", "<Entity> has a X of Y.", plain sentences) and names other generated entities, so
linking, backlinks and conflicts happen. Deliberate conflicts: ticket comments contradicting
approved policies and CRM renewal dates (resolved by authority), legacy vs production CRM
accounts (resolved), product vs pricing pages on the uptime SLA (open, equal rank), handbook
docs naming different account managers (open, equal rank), product codes (resolved).

Measured per N: clean compile; three single-record edits (median); an edit of 1 % of the
records spread over files; a no-change recompile; then the incrementally maintained wiki is
compared file by file with a clean rebuild of the final corpus (log.md and .folio/ excepted).
The clean compile also reports its CPU time over all processes (ms per record): the figure to
compare across runs on a shared machine. Previous wikis are deleted and the disk is let settle
before it, so that it does not pay for writing back their deletion.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# measure the compiler of this checkout, not whichever one pip installed in editable mode
sys.path.insert(0, str(REPO))
ACME = REPO / "examples" / "acme"
TODAY = "2026-11-20"  # fixed, so every compile of a run logs the same day
TENANT = "acme"
SEED = 20261120

CONF_PER_FILE = 100
JIRA_PER_FILE = 100
SF_PER_FILE = 200

TARGET_RATE = 2000.0
TARGET_INCR_S = 1.0
TARGET_RSS_MIB = 2048.0
SERIAL_COMPARE_MAX_N = 20_000  # above this, a second clean compile costs too long

# ---------------------------------------------------------------------------------------------
# names
# ---------------------------------------------------------------------------------------------
_ONSETS = "b c d f g k l m n p r s t v z br dr kr tr st".split()
_NUCLEI = "a e i o u ai ea io".split()
_SYLLABLES = [o + n for o in _ONSETS for n in _NUCLEI]  # 160
_SPACE = len(_SYLLABLES) ** 3


def pseudo_word(i: int) -> str:
    """A pronounceable, unique made-up word for every i < 160**3 (a scrambled bijection)."""
    x = (i * 7919 + 104729) % _SPACE
    parts = []
    for _ in range(3):
        x, d = divmod(x, len(_SYLLABLES))
        parts.append(_SYLLABLES[d])
    return "".join(parts).capitalize()


FIRST_NAMES = ("Dana Peter Alexia Virginia Omar Lena Sam Priya Tom Maria Lina Jonas Aiko Bruno "
               "Chloe Diego Elena Farid Greta Hugo Ines Jamal Kira Luca Mina Noah Olga Pavel "
               "Quinn Rosa Sven Tara Umar Vera Wes Xenia Yusuf Zoe Arjun Beatriz").split()
STAFF = ["Priya Natarajan", "Tom Becker", "Maria Chen", "Lina Okafor", "Sam Patel", "Lena Park",
         "Omar Haddad", "Ravi Iyer", "Grace Liu", "Hannah Vogel", "Kofi Mensah", "Sofia Rossi"]
MANAGERS = ["Sam Patel", "Lena Park", "Omar Haddad", "Grace Liu", "Kofi Mensah", "Sofia Rossi"]
NOUNS = ("Logistics Systems Health Industries Foods Energy Retail Robotics Media Capital Pharma "
         "Motors Networks Aerospace Textiles Mining Biotech Telecom Insurance Shipping").split()
SUFFIXES = ["Inc", "Corporation", "Ltd", "LLC", "Group", "", "GmbH", "PLC", "Holdings"]
LEGAL = {"Inc", "Corporation", "Ltd", "LLC", "GmbH", "PLC"}
INDUSTRIES = ["Manufacturing", "Retail", "Healthcare", "Technology", "Aerospace", "Energy",
              "Financial Services", "Logistics", "Media", "Education"]
POLICY_TOPICS = ["Return", "Support", "Discount Approval", "Data Retention", "Security",
                 "Travel", "Procurement", "Incident Response", "Onboarding", "Refund"]
PLAN_KINDS = ["Account Plan", "Deployment Notes", "Success Review", "Renewal Brief", "QBR Notes",
              "Migration Plan", "Risk Register", "Expansion Plan"]
DOC_KINDS = [("Playbook", "process"), ("Field Guide", "topic"), ("Team", "team"),
             ("Runbook", "process"), ("Checklist", "process"), ("Notes", "topic")]
SYMPTOMS = ["fails after a certificate rotation", "drops sessions during peak load",
            "reports stale dashboards", "rejects bulk imports", "reboots every 6 hours",
            "times out on large exports", "shows wrong invoice totals", "loses sync with the ERP"]
FAMILIES = ["Software", "Hardware", "Services"]
STAGES = ["Prospecting", "Qualification", "Proposal/Price Quote", "Negotiation/Review",
          "Closed Won", "Closed Lost"]
OPP_KINDS = ["Expansion", "Renewal", "Pilot", "Upgrade", "Rollout"]
TITLES = ["VP Procurement", "IT Manager", "Chief Information Security Officer",
          "Chief Operating Officer", "Head of Operations", "Director of Engineering"]

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def sf_id(prefix: str, i: int, org: str = "5g") -> str:
    n, s = i, ""
    for _ in range(6):
        n, d = divmod(n, 62)
        s = _B62[d] + s
    return f"{prefix}{org}0000{s}AAL"[:18].ljust(18, "A")


def ts(rng: random.Random, start: str = "2026-09-01", days: int = 75, fmt: str = "sf") -> str:
    base = datetime.fromisoformat(start).replace(tzinfo=timezone.utc)
    t = base + timedelta(seconds=rng.randrange(days * 86400), milliseconds=rng.randrange(1000))
    if fmt == "conf":
        return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}+0000"


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


class World:
    """Every entity of the synthetic company, by name; built before any file is written."""

    def __init__(self, n: int, rng: random.Random) -> None:
        self.n = n
        n_conf, n_jira, n_sf = n * 20 // 100, n * 30 // 100, n * 40 // 100
        self.n_md = n - n_conf - n_jira - n_sf
        self.n_jira = n_jira
        self.n_prod = max(3, n_sf * 25 // 1000)
        self.n_legacy = max(1, n_sf * 25 // 1000)
        self.n_acc = max(4, n_sf * 25 // 100)
        self.n_con = n_sf * 40 // 100
        self.n_opp = n_sf - self.n_prod - self.n_legacy - self.n_acc - self.n_con
        self.n_ppage = min(self.n_prod, n_conf // 4)
        self.n_pricing = min(self.n_prod, max(1, n_conf * 5 // 100))
        self.n_pol = max(1, n_conf * 10 // 100)
        self.n_plan = n_conf - self.n_ppage - self.n_pricing - self.n_pol
        assert min(self.n_opp, self.n_plan, self.n_md) > 0, "N too small"
        w = iter(range(10_000_000))
        self.products = [f"Acme {pseudo_word(next(w))}" for _ in range(self.n_prod)]
        self.acc_core = [pseudo_word(next(w)) for _ in range(self.n_acc)]
        self.accounts, self.acc_short = [], []
        for i, core in enumerate(self.acc_core):
            noun = NOUNS[rng.randrange(len(NOUNS))]
            suffix = SUFFIXES[rng.randrange(len(SUFFIXES))]
            name = f"{core} {noun} {suffix}".strip()
            self.accounts.append(name)
            self.acc_short.append(f"{core} {noun}" if suffix in LEGAL else name)
        self.contacts = []  # (first, last, account index)
        for i in range(self.n_con):
            self.contacts.append((FIRST_NAMES[rng.randrange(len(FIRST_NAMES))],
                                  pseudo_word(next(w)), i % self.n_acc))
        self.contacts_of: dict[int, list[int]] = {}
        for ci, (_, _, a) in enumerate(self.contacts):
            self.contacts_of.setdefault(a, []).append(ci)
        self.policies = [f"{pseudo_word(next(w))} {POLICY_TOPICS[i % len(POLICY_TOPICS)]} Policy"
                         for i in range(self.n_pol)]
        self.return_window = [rng.choice([30, 45, 60, 90]) for _ in range(self.n_pol)]
        self.renewal = [f"2027-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"
                        for _ in range(self.n_acc)]
        self.codes = [f"{slug(p.split()[1])[:2].upper()}-{100 + i}" for i, p in enumerate(self.products)]
        self.manager = [MANAGERS[rng.randrange(len(MANAGERS))] for _ in range(self.n_acc)]
        self.ticket_keys = [f"SUP-{1001 + i}" for i in range(n_jira)]
        self.doc_words = [pseudo_word(next(w)) for _ in range(self.n_md)]

    def contact_name(self, ci: int) -> str:
        first, last, _ = self.contacts[ci]
        return f"{first} {last}"

    def contact_of(self, a: int, rng: random.Random) -> str | None:
        cs = self.contacts_of.get(a)
        return self.contact_name(cs[rng.randrange(len(cs))]) if cs else None


# ---------------------------------------------------------------------------------------------
# payload builders (shapes copied from examples/acme)
# ---------------------------------------------------------------------------------------------
CONF_BASE = "https://acme.atlassian.net/wiki"
JIRA_BASE = "https://acme.atlassian.net"
SPACES = {"POL": (98305, "Policies"), "PROD": (98306, "Products"), "CS": (98307, "Customer Success")}


def _conf_user(name: str) -> dict[str, Any]:
    acc = "5f3c9a1e2b7d4c00" + f"{zlib.crc32(name.encode()):08x}"
    return {"type": "known", "accountId": acc, "accountType": "atlassian",
            "email": f"{slug(name).replace('-', '.')}@acme.example", "publicName": name,
            "displayName": name,
            "_links": {"self": f"{CONF_BASE}/rest/api/user?accountId={acc}"}}


def link(title: str) -> str:
    return f'<ac:link><ri:page ri:content-title="{html.escape(title)}" /></ac:link>'


def conf_page(pid: int, title: str, space: str, labels: list[str], storage: str, version: int,
              when: str, author: str, groups: tuple[str, ...] = ()) -> dict[str, Any]:
    sid, sname = SPACES[space]
    who = _conf_user(author)
    label_ids = {lab: str(1310720 + sum(map(ord, lab))) for lab in labels}
    return {
        "id": str(pid), "type": "page", "status": "current", "title": title,
        "space": {"id": sid, "key": space, "name": sname, "type": "global", "status": "current",
                  "_expandable": {"settings": f"/rest/api/space/{space}/settings", "homepage": "",
                                  "description": ""},
                  "_links": {"webui": f"/spaces/{space}", "self": f"{CONF_BASE}/rest/api/space/{space}"}},
        "history": {"latest": True, "createdBy": who, "createdDate": "2025-03-01T09:00:00.000Z",
                    "_expandable": {"lastUpdated": "", "previousVersion": "", "contributors": "",
                                    "nextVersion": ""},
                    "_links": {"self": f"{CONF_BASE}/rest/api/content/{pid}/history"}},
        "version": {"by": who, "when": when, "friendlyWhen": when[:10], "message": "",
                    "number": version, "minorEdit": False, "contentTypeModified": False,
                    "_expandable": {"collaborators": "", "content": f"/rest/api/content/{pid}"},
                    "_links": {"self": f"{CONF_BASE}/rest/api/content/{pid}/version/{version}"}},
        "body": {"storage": {"value": storage, "representation": "storage", "embeddedContent": [],
                             "_expandable": {"content": f"/rest/api/content/{pid}"}},
                 "_expandable": {"editor": "", "atlas_doc_format": "", "view": "", "export_view": ""}},
        "metadata": {"labels": {"results": [{"prefix": "global", "name": lab, "id": label_ids[lab],
                                             "label": lab} for lab in sorted(labels)],
                                "start": 0, "limit": 200, "size": len(labels),
                                "_links": {"self": f"{CONF_BASE}/rest/api/content/{pid}/label"}},
                     "_expandable": {"currentuser": "", "properties": "", "frontend": "", "likes": ""}},
        "restrictions": {
            "read": {"operation": "read", "restrictions": {
                "user": {"results": [], "start": 0, "limit": 200, "size": 0},
                "group": {"results": [{"type": "group", "name": g, "id": f"7d1c0b2e-{g}",
                                       "_links": {"self": f"{CONF_BASE}/rest/api/group/by-id?id=7d1c0b2e-{g}"}}
                                      for g in groups],
                          "start": 0, "limit": 200, "size": len(groups)}},
                     "_expandable": {"content": f"/rest/api/content/{pid}"},
                     "_links": {"self": f"{CONF_BASE}/rest/api/content/{pid}/restriction/byOperation/read"}},
            "_expandable": {"update": ""},
            "_links": {"self": f"{CONF_BASE}/rest/api/content/{pid}/restriction/byOperation"}},
        "extensions": {"position": pid % 1000},
        "_expandable": {"childTypes": "", "container": f"/rest/api/space/{space}", "operations": "",
                        "schedulePublishDate": "", "children": f"/rest/api/content/{pid}/child",
                        "ancestors": "", "descendants": f"/rest/api/content/{pid}/descendant"},
        "_links": {"self": f"{CONF_BASE}/rest/api/content/{pid}", "tinyui": f"/x/{pid:x}",
                   "editui": f"/pages/resumedraft.action?draftId={pid}",
                   "webui": f"/spaces/{space}/pages/{pid}/{title.replace(' ', '+')}"},
    }


def conf_list(space: str, start: int, results: list[dict[str, Any]]) -> dict[str, Any]:
    return {"results": results, "start": start, "limit": CONF_PER_FILE, "size": len(results),
            "_links": {"base": CONF_BASE, "context": "/wiki",
                       "self": f"{CONF_BASE}/rest/api/content?spaceKey={space}&type=page&start={start}"
                               "&expand=body.storage,version,space,history,metadata.labels,"
                               "restrictions.read.restrictions.user,restrictions.read.restrictions.group"}}


def _jira_user(name: str) -> dict[str, Any]:
    acc = f"712020:4a7e1c2b-0d3f-4b6a-9e21-{zlib.crc32(name.encode()):012x}"
    return {"self": f"{JIRA_BASE}/rest/api/2/user?accountId={acc}",
            "name": slug(name).replace("-", "."), "accountId": acc, "displayName": name,
            "active": True}


JIRA_NAMES = {"summary": "Summary", "issuetype": "Issue Type", "project": "Project",
              "status": "Status", "priority": "Priority", "components": "Component/s",
              "labels": "Labels", "reporter": "Reporter", "assignee": "Assignee",
              "created": "Created", "updated": "Updated", "description": "Description",
              "resolution": "Resolution", "resolutiondate": "Resolved",
              "issuelinks": "Linked Issues", "security": "Security Level", "comment": "Comment",
              "customfield_10050": "Customer"}


def sf_attrs(sobject: str, rid: str) -> dict[str, str]:
    return {"type": sobject, "url": f"/services/data/v59.0/sobjects/{sobject}/{rid}"}


def sf_query(records: list[dict[str, Any]], total: int, last: bool, page: int) -> dict[str, Any]:
    doc: dict[str, Any] = {"totalSize": total, "done": last}
    if not last:
        doc["nextRecordsUrl"] = f"/services/data/v59.0/query/01gD0000002HU6KIAW-{(page + 1) * SF_PER_FILE}"
    doc["records"] = records
    return doc


# ---------------------------------------------------------------------------------------------
# generation
# ---------------------------------------------------------------------------------------------
def _dump(path: Path, doc: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def generate(n: int, corpus: Path, seed: int) -> list[dict[str, Any]]:
    """Write the corpus; return the index of every record: file, position, key, system."""
    rng = random.Random(seed * 1_000_003 + n)
    world = World(n, rng)
    if corpus.exists():
        shutil.rmtree(corpus)
    corpus.mkdir(parents=True)
    for name in ("sources.yaml", "authority.yaml", "directory.yaml"):
        shutil.copy(ACME / name, corpus / name)
    index: list[dict[str, Any]] = []

    def chunked(items: list[Any], size: int):
        for page, start in enumerate(range(0, len(items), size)):
            yield page, start, items[start:start + size]

    # -- Salesforce (prod: Product2, Account, Contact, Opportunity; legacy: Account) ------------
    products = []
    for i, name in enumerate(world.products):
        rid = sf_id("01t", i)
        products.append({
            "attributes": sf_attrs("Product2", rid), "Id": rid, "Name": name,
            "ProductCode": world.codes[i], "Family": FAMILIES[i % 3], "IsActive": rng.random() > 0.05,
            "Description": f"{name} runs Acme workflows for {rng.choice(INDUSTRIES).lower()} teams. "
                           f"The list price of {name} is ${rng.randrange(10, 400)} per seat.",
            "CreatedDate": "2024-03-01T09:00:00.000+0000",
            "LastModifiedDate": (t := ts(rng)), "SystemModstamp": t})
    accounts = []
    for a, name in enumerate(world.accounts):
        rid = sf_id("001", a)
        p1, p2 = rng.sample(world.products, 2)
        contact = world.contact_of(a, rng)
        sentences = [f"{world.acc_short[a]} runs {p1} in {rng.randrange(2, 40)} sites and {p2} "
                     f"for {rng.choice(['scheduling', 'billing', 'reporting', 'field service'])}.",
                     f"The renewal date is {world.renewal[a]}."]
        if contact:
            sentences.append(f"Escalations go to {contact}.")
        sentences.append(f"Customer success manager: {world.manager[a]}")
        accounts.append({
            "attributes": sf_attrs("Account", rid), "Id": rid, "Name": name,
            "Type": rng.choice(["Customer - Direct", "Customer - Channel", "Prospect"]),
            "Industry": INDUSTRIES[a % len(INDUSTRIES)],
            "CustomerTier__c": rng.choice(["Enterprise", "Standard"]),
            "NumberOfEmployees": rng.randrange(50, 60000),
            "AnnualRevenue": float(rng.randrange(1, 5000)) * 1e6,
            "BillingCity": rng.choice(["Springfield", "Austin", "Boston", "New York", "Denver", "Seattle"]),
            "BillingCountry": "United States",
            "Website": f"www.{slug(world.acc_core[a])}.example", "Phone": f"+1 555 {a % 10000:04d}",
            "Description": " ".join(sentences[:-1]) + "\n" + sentences[-1],
            "CreatedDate": "2019-06-11T08:00:00.000+0000",
            "LastModifiedDate": (t := ts(rng)), "SystemModstamp": t})
    legacy = []
    for j in range(world.n_legacy):
        a = j * (world.n_acc // world.n_legacy)
        src = accounts[a]
        rid = sf_id("001", j, org="3t")
        legacy.append({**{k: v for k, v in src.items() if k not in ("attributes", "Id")},
                       "attributes": sf_attrs("Account", rid), "Id": rid,
                       # deliberate conflicts with prod (outranked: crm-production over crm-legacy)
                       "Industry": INDUSTRIES[(a + 3) % len(INDUSTRIES)],
                       "NumberOfEmployees": max(1, src["NumberOfEmployees"] - rng.randrange(1, 500)),
                       "Description": "Migrated from the Siebel CRM in 2019.",
                       "LastModifiedDate": "2026-09-03T02:00:00.000+0000",
                       "SystemModstamp": "2026-09-03T02:00:00.000+0000"})
    contacts = []
    for ci, (first, last, a) in enumerate(world.contacts):
        rid = sf_id("003", ci)
        mates = [c for c in world.contacts_of[a] if c != ci]
        desc = [f"{first} {last} works at {world.acc_short[a]} as the main contact for "
                f"{rng.choice(world.products)}."]
        if mates:
            desc.append(f"{first} reports to {world.contact_name(rng.choice(mates))}.")
        desc.append(f"The preferred channel of {first} {last} is {rng.choice(['email', 'phone', 'Slack'])}.")
        contacts.append({
            "attributes": sf_attrs("Contact", rid), "Id": rid, "FirstName": first, "LastName": last,
            "Name": f"{first} {last}", "Title": rng.choice(TITLES),
            "Email": f"{first.lower()}.{last.lower()}@{slug(world.acc_core[a])}.example",
            "Phone": f"+1 555 {ci % 10000:04d}", "AccountId": accounts[a]["Id"],
            "Account": {"attributes": sf_attrs("Account", accounts[a]["Id"]), "Name": world.accounts[a]},
            "Description": " ".join(desc),
            "CreatedDate": "2020-02-17T14:30:00.000+0000",
            "LastModifiedDate": (t := ts(rng)), "SystemModstamp": t})
    opps = []
    per_acc: dict[int, int] = {}
    for oi in range(world.n_opp):
        a = rng.randrange(world.n_acc)
        per_acc[a] = per_acc.get(a, 0) + 1
        p = rng.randrange(world.n_prod)
        rid = sf_id("006", oi)
        name = f"{world.acc_core[a]} - {world.products[p]} {rng.choice(OPP_KINDS)} {per_acc[a]}"
        contact = world.contact_of(a, rng)
        desc = [f"Adds {rng.randrange(10, 900)} {world.products[p]} seats for {world.acc_short[a]}."]
        if contact:
            desc.append(f"The decision maker is {contact}.")
        desc.append(f"Competitor: {rng.choice(['Initrode', 'Vandelay', 'Hooli', 'none'])}")
        stage = rng.choice(STAGES)
        opps.append({
            "attributes": sf_attrs("Opportunity", rid), "Id": rid, "Name": name, "StageName": stage,
            "Amount": float(rng.randrange(5, 2000) * 1000), "CloseDate": f"2027-0{rng.randrange(1, 10)}-15",
            "Probability": float(rng.choice([10, 20, 50, 80, 100])),
            "Type": rng.choice(["New Customer", "Existing Customer - Upgrade", "Existing Customer - Renewal"]),
            "ForecastCategoryName": rng.choice(["Pipeline", "Commit", "Closed"]),
            "AccountId": accounts[a]["Id"],
            "Account": {"attributes": sf_attrs("Account", accounts[a]["Id"]), "Name": world.accounts[a]},
            "Primary_Product__c": products[p]["Id"],
            "Primary_Product__r": {"attributes": sf_attrs("Product2", products[p]["Id"]),
                                   "Name": world.products[p]},
            "Description": " ".join(desc[:-1]) + "\n" + desc[-1],
            "CreatedDate": "2026-06-02T09:30:00.000+0000",
            "LastModifiedDate": (t := ts(rng)), "SystemModstamp": t})

    for folder, stem, sobject, rows in (("salesforce/prod", "products", "Product2", products),
                                        ("salesforce/prod", "accounts", "Account", accounts),
                                        ("salesforce/prod", "contacts", "Contact", contacts),
                                        ("salesforce/prod", "opportunities", "Opportunity", opps),
                                        ("salesforce/legacy", "accounts", "Account", legacy)):
        instance = "acme-prod" if folder.endswith("prod") else "acme-legacy"
        pages = (len(rows) + SF_PER_FILE - 1) // SF_PER_FILE
        for page, start, chunk in chunked(rows, SF_PER_FILE):
            rel = f"{folder}/{stem}-{page + 1:04d}.json"
            _dump(corpus / rel, sf_query(chunk, len(rows), page == pages - 1, page))
            for pos, row in enumerate(chunk):
                index.append({"file": rel, "pos": pos, "system": "salesforce", "kind": sobject,
                              "key": f"{TENANT}/salesforce/{instance}/{sobject}/{row['Id']}"})
    del products, accounts, legacy, contacts, opps

    # -- Confluence --------------------------------------------------------------------------
    pid = iter(range(100_001, 10_000_000))
    pol, prod, cs = [], [], []
    for i, title in enumerate(world.policies):
        topic = POLICY_TOPICS[i % len(POLICY_TOPICS)]
        others = rng.sample(world.policies, min(2, len(world.policies)))
        p = rng.choice(world.products)
        storage = (f"<p>This policy sets out how Acme handles {topic.lower()} matters for every "
                   f"customer tier.</p><h2>Rules</h2><p>The return window for Enterprise customers is "
                   f"{world.return_window[i]} days. The return window for Standard customers is 30 days. "
                   f"Exceptions for {link(p)} need a second approval under the {link(others[0])}.</p>"
                   f"<table><tbody><tr><th>Policy owner</th><td>{rng.choice(STAFF)}</td></tr>"
                   f"<tr><th>Review cycle</th><td>{rng.choice(['6 months', '12 months'])}</td></tr>"
                   f"</tbody></table><p>See also the {link(others[-1])}.</p>")
        approved = rng.random() > 0.1  # drafts fall to confluence-other
        labels = ["policy"] + (["approved"] if approved else ["draft"])
        groups = ("finance",) if rng.random() < 0.05 else ()
        if groups:
            labels.append("finance")
        pol.append(conf_page(next(pid), title, "POL", labels, storage, rng.randrange(1, 12),
                             ts(rng, fmt="conf"), rng.choice(STAFF), groups))
    for i in range(world.n_ppage):
        name = world.products[i]
        code = world.codes[i] if rng.random() > 0.05 else f"{world.codes[i]}X"  # a few disagree with CRM
        pols = rng.sample(world.policies, min(2, len(world.policies)))
        storage = (f"<p>{html.escape(name)} handles workflow automation for mid-size and large "
                   f"enterprises.</p><table><tbody><tr><th>Product code</th><td>{code}</td></tr>"
                   f"<tr><th>Deployment model</th><td>{rng.choice(['Multi-tenant SaaS', 'On-premises', 'Hybrid'])}</td></tr>"
                   f"<tr><th>Product owner</th><td>{rng.choice(STAFF)}</td></tr></tbody></table>"
                   f"<h2>Service levels</h2><p>The uptime SLA is 99.9%. Severity levels follow the "
                   f"{link(pols[0])}.</p><p>Refunds follow the {link(pols[-1])}.</p>")
        prod.append(conf_page(next(pid), name, "PROD", ["product"], storage, rng.randrange(1, 9),
                              ts(rng, fmt="conf"), rng.choice(STAFF)))
    for i in range(world.n_pricing):
        name = world.products[i]
        sla = "99.95%" if i % 3 == 0 else "99.9%"  # every third one contradicts the product page
        storage = (f"<p>List prices for {link(name)} in every region.</p><p>The uptime SLA of "
                   f"{html.escape(name)} is {sla}. The list price of {html.escape(name)} is "
                   f"${rng.randrange(10, 400)} per seat.</p><p>Discounts follow the "
                   f"{link(rng.choice(world.policies))}.</p>")
        prod.append(conf_page(next(pid), f"{name} Pricing", "PROD", ["pricing"], storage,
                              rng.randrange(1, 9), ts(rng, fmt="conf"), rng.choice(STAFF)))
    for j in range(world.n_plan):
        a, k = j % world.n_acc, j // world.n_acc
        acc = world.accounts[a]
        contact = world.contact_of(a, rng)
        p = rng.choice(world.products)
        parts = [f"<p>Working notes of the account team for {link(acc)}.</p>"]
        if contact:
            parts.append(f"<p>The executive sponsor of {html.escape(world.acc_short[a])} is "
                         f"{html.escape(contact)}.</p>")
        if rng.random() < 0.1:  # disagrees with the handbook (confluence-other outranks handbook)
            parts.append(f"<p>The account manager of {html.escape(acc)} is {rng.choice(MANAGERS)}.</p>")
        parts.append(f"<table><tbody><tr><th>Deployment target</th><td>{rng.randrange(5, 500)} "
                     f"{html.escape(p)} seats</td></tr><tr><th>Health</th><td>"
                     f"{rng.choice(['Green', 'Amber', 'Red'])}</td></tr></tbody></table>")
        parts.append(f"<p>{html.escape(world.acc_short[a])} plans to adopt {link(p)} next quarter. "
                     f"Renewal terms follow the {link(rng.choice(world.policies))}.</p>")
        cs.append(conf_page(next(pid), f"{acc} {PLAN_KINDS[k % len(PLAN_KINDS)]}"
                            + (f" {k // len(PLAN_KINDS) + 1}" if k >= len(PLAN_KINDS) else ""),
                            "CS", ["account-plan"], "".join(parts), rng.randrange(1, 20),
                            ts(rng, fmt="conf"), rng.choice(STAFF)))
    for space, items in (("POL", pol), ("PROD", prod), ("CS", cs)):
        for page, start, chunk in chunked(items, CONF_PER_FILE):
            rel = f"confluence/{space.lower()}-{page + 1:04d}.json"
            _dump(corpus / rel, conf_list(space, start, chunk))
            for pos, item in enumerate(chunk):
                index.append({"file": rel, "pos": pos, "system": "confluence", "kind": space,
                              "key": f"{TENANT}/confluence/acme.atlassian.net/page/{item['id']}"})
    del pol, prod, cs

    # -- Jira ---------------------------------------------------------------------------------
    issues = []
    for i, key in enumerate(world.ticket_keys):
        iid = 20_001 + i
        a = rng.randrange(world.n_acc)
        comps = rng.sample(range(world.n_prod), rng.choice([1, 1, 2]))
        p = world.products[comps[0]]
        updated = ts(rng, start="2026-10-01", days=45)
        if rng.random() < 0.02:
            updated = ts(rng, start="2024-05-01", days=30)  # stale tickets
        desc = (f"{world.acc_short[a]} reports that {p} {rng.choice(SYMPTOMS)}.\r\n\r\n"
                f"Affected tenant: {slug(world.acc_core[a])}-prod\r\n"
                f"Users affected: about {rng.randrange(10, 5000)}")
        comments = []
        for c in range(rng.choice([1, 2, 2, 3])):
            r = rng.random()
            if r < 0.25:
                pi = rng.randrange(world.n_pol)
                # usually contradicts the approved policy; outranked by approved-policy
                days = 30 if world.return_window[pi] != 30 else 14
                body = (f"Per the {world.policies[pi]}, the return window for Enterprise customers "
                        f"is {days} days.")
            elif r < 0.45:
                date = world.renewal[a] if rng.random() < 0.5 else "2027-12-31"
                body = f"The renewal date of {world.acc_short[a]} is {date}."
            elif r < 0.7 and world.contacts_of.get(a):
                body = (f"Fix deployed to the staging tenant. Waiting for "
                        f"{world.contact_of(a, rng)} to confirm before rollout.")
            else:
                other = world.ticket_keys[rng.randrange(len(world.ticket_keys))]
                body = f"Same code path as {other}; linking the two."
            author = rng.choice(STAFF)
            comments.append({"self": f"{JIRA_BASE}/rest/api/2/issue/{iid}/comment/{iid * 10 + c}",
                             "id": str(iid * 10 + c), "author": _jira_user(author), "body": body,
                             "created": updated, "updated": updated, "jsdPublic": True})
        links = []
        if rng.random() < 0.3:
            o = rng.randrange(len(world.ticket_keys))
            links.append({"id": str(50_000 + i), "self": f"{JIRA_BASE}/rest/api/2/issueLink/{50_000 + i}",
                          "type": {"id": "10003", "name": "Relates", "inward": "relates to",
                                   "outward": "relates to",
                                   "self": f"{JIRA_BASE}/rest/api/2/issueLinkType/10003"},
                          "outwardIssue": {"id": str(20_001 + o), "key": world.ticket_keys[o],
                                           "self": f"{JIRA_BASE}/rest/api/2/issue/{20_001 + o}",
                                           "fields": {"summary": "Related issue",
                                                      "status": {"name": "Open", "id": "1"}}}})
        status = rng.choice([("Open", "1", 2, "new", "To Do"), ("In Progress", "3", 4, "indeterminate", "In Progress"),
                             ("Resolved", "5", 3, "done", "Done")])
        fields: dict[str, Any] = {
            "summary": f"{p} {rng.choice(SYMPTOMS)} at {world.acc_short[a]}",
            "issuetype": {"self": f"{JIRA_BASE}/rest/api/2/issuetype/10006", "id": "10006",
                          "name": rng.choice(["Bug", "Service Request", "Incident"]), "subtask": False},
            "project": {"self": f"{JIRA_BASE}/rest/api/2/project/10010", "id": "10010", "key": "SUP",
                        "name": "Customer Support", "projectTypeKey": "service_desk"},
            "status": {"self": f"{JIRA_BASE}/rest/api/2/status/{status[1]}", "name": status[0],
                       "id": status[1], "statusCategory": {"id": status[2], "key": status[3],
                                                           "name": status[4]}},
            "priority": {"self": f"{JIRA_BASE}/rest/api/2/priority/2",
                         "name": rng.choice(["High", "Medium", "Low"]), "id": "2"},
            "components": [{"self": f"{JIRA_BASE}/rest/api/2/component/{10100 + c}", "id": str(10100 + c),
                            "name": world.products[c]} for c in comps],
            "labels": rng.sample(["sso", "saml", "outage", "billing", "export", "firmware"], 2),
            "reporter": _jira_user("Acme Support Portal"),
            "assignee": _jira_user(rng.choice(STAFF)),
            "created": ts(rng, start="2026-08-01", days=60),
            "updated": updated,
            "description": desc,
            "resolution": None, "resolutiondate": None,
            "issuelinks": links,
            "customfield_10050": {"self": f"{JIRA_BASE}/rest/api/2/customFieldOption/{10200 + a}",
                                  "value": world.accounts[a], "id": str(10200 + a)},
            "comment": {"comments": comments, "self": f"{JIRA_BASE}/rest/api/2/issue/{iid}/comment",
                        "maxResults": len(comments), "total": len(comments), "startAt": 0},
        }
        if rng.random() < 0.05:
            fields["security"] = {"self": f"{JIRA_BASE}/rest/api/2/securitylevel/10100", "id": "10100",
                                  "description": "Visible to the support team only",
                                  "name": "Support Only"}
        issues.append({"expand": "operations,versionedRepresentations,editmeta,changelog,renderedFields",
                       "id": str(iid), "self": f"{JIRA_BASE}/rest/api/2/issue/{iid}", "key": key,
                       "fields": fields})
    for page, start, chunk in chunked(issues, JIRA_PER_FILE):
        rel = f"jira/search-page-{page + 1:04d}.json"
        _dump(corpus / rel, {"expand": "names,schema", "startAt": start, "maxResults": JIRA_PER_FILE,
                             "total": len(issues), "issues": chunk, "names": JIRA_NAMES})
        for pos, issue in enumerate(chunk):
            index.append({"file": rel, "pos": pos, "system": "jira", "kind": "issue",
                          "key": f"{TENANT}/jira/acme.atlassian.net/issue/{issue['id']}"})
    del issues

    # -- markdown handbook ---------------------------------------------------------------------
    for d in range(world.n_md):
        kind, etype = DOC_KINDS[d % len(DOC_KINDS)]
        word = world.doc_words[d]
        title = f"{word} {kind}"
        a = rng.randrange(world.n_acc)
        acc = world.accounts[a]
        manager = world.manager[a] if rng.random() > 0.15 else rng.choice(MANAGERS)  # open contradictions
        pol_name = rng.choice(world.policies)
        ticket = rng.choice(world.ticket_keys)
        front = [f"title: {title}", f"type: {etype}"]
        if etype == "team":
            front.append(f"aliases: [{word} Engineering]")
        front.append(f"updated: 2026-{rng.randrange(9, 12):02d}-{rng.randrange(1, 29):02d}")
        if rng.random() < 0.2:
            front.append("acl:\n  groups: [staff]")
        contact = world.contact_of(a, rng)
        body = [f"# {title}", "",
                f"How the {word} crew works with [[{acc}]] and the products it runs.", "",
                f"The account manager of [[{acc}]] is {manager}.",
                f"[[{acc}]] has a renewal date of {world.renewal[a] if rng.random() > 0.1 else '2028-01-31'}.",
                "",
                f"1. Check the customer tier in Salesforce before quoting the [[{pol_name}]].",
                f"2. Open a ticket for [[{rng.choice(world.products)}]] issues and link it to the account.",
                "",
                f"Escalation contact: {contact}" if contact else "Escalation contact: the on-call lead",
                f"Review cadence: {rng.choice(['weekly', 'monthly', 'quarterly'])}", "",
                f"Worked example: [[{ticket}]] for [[{world.acc_short[a]}]]."]
        rel = f"handbook/{slug(title)}.md"
        path = corpus / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("---\n" + "\n".join(front) + "\n---\n\n" + "\n".join(body) + "\n", encoding="utf-8")
        index.append({"file": rel, "pos": 0, "system": "markdown", "kind": etype,
                      "key": f"{TENANT}/markdown/handbook/doc/{slug(title)}"})
    return index


# ---------------------------------------------------------------------------------------------
# editing one record: change one sentence, bump the version, rewrite the file
# ---------------------------------------------------------------------------------------------
_FIRST_SENTENCE_END = re.compile(r"\.(?=\s|$|<)")


def _edit_text(text: str, rev: int) -> str:
    m = _FIRST_SENTENCE_END.search(text)
    if m is None:
        return text + f" (revision {rev})"
    return text[:m.start()] + f" (revision {rev})" + text[m.start():]


def edit_records(corpus: Path, entries: list[dict[str, Any]], rev: int) -> None:
    """Edit one sentence of each listed record; every touched file is rewritten once."""
    by_file: dict[str, list[dict[str, Any]]] = {}
    for e in entries:
        by_file.setdefault(e["file"], []).append(e)
    stamp_sf = f"2026-11-19T{rev % 24:02d}:{rev % 60:02d}:00.000+0000"
    stamp_conf = f"2026-11-19T{rev % 24:02d}:{rev % 60:02d}:00.000Z"
    for rel, es in by_file.items():
        path = corpus / rel
        if rel.endswith(".md"):
            text = path.read_text(encoding="utf-8")
            head, sep, body = text.partition("\n---\n")
            head = re.sub(r"(?m)^updated: .*$", "updated: 2026-11-19", head)
            lines = body.split("\n")
            i = next(k for k, ln in enumerate(lines) if ln.startswith("The account manager"))
            lines[i] = _edit_text(lines[i], rev)
            path.write_text(head + sep + "\n".join(lines), encoding="utf-8")
            continue
        doc = json.loads(path.read_bytes())
        for e in es:
            if e["system"] == "salesforce":
                row = doc["records"][e["pos"]]
                row["Description"] = _edit_text(row.get("Description") or "", rev)
                row["SystemModstamp"] = row["LastModifiedDate"] = stamp_sf
            elif e["system"] == "confluence":
                item = doc["results"][e["pos"]]
                st = item["body"]["storage"]
                st["value"] = _edit_text(st["value"], rev)
                item["version"]["number"] += 1
                item["version"]["when"] = stamp_conf
                item["version"]["friendlyWhen"] = stamp_conf[:10]
            elif e["system"] == "jira":
                f = doc["issues"][e["pos"]]["fields"]
                f["description"] = _edit_text(f["description"], rev)
                f["updated"] = stamp_sf
        _dump(path, doc)


# ---------------------------------------------------------------------------------------------
# measuring (runs in its own process per N)
# ---------------------------------------------------------------------------------------------
class RssSampler:
    """Peak resident memory of this process plus its worker processes, sampled every 20 ms.
    Forked workers share pages with the parent; summing counts those twice, so the figure
    errs high. ``ru_maxrss`` alone would miss the workers entirely."""

    def __init__(self) -> None:
        import threading

        import psutil

        self._me = psutil.Process()
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def sample(self) -> float:
        import psutil

        total = self._me.memory_info().rss
        for child in self._me.children(recursive=True):
            try:
                total += child.memory_info().rss
            except psutil.Error:
                pass  # a worker that just exited
        mib = total / 2**20
        self.peak = max(self.peak, mib)
        return mib

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            self.sample()


_SAMPLER: RssSampler | None = None


def rss_mib() -> float:
    """Peak RSS so far (parent + workers) in MiB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux
    if _SAMPLER is None:
        return own
    _SAMPLER.sample()
    return max(own, _SAMPLER.peak)


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def compare_trees(a: Path, b: Path) -> list[str]:
    """Relative paths that differ between two wikis (log.md and .folio/ excepted)."""
    def files(root: Path) -> set[str]:
        out = set()
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d != ".folio"]
            for name in filenames:
                rel = (Path(dirpath) / name).relative_to(root).as_posix()
                if rel != "log.md":
                    out.add(rel)
        return out

    fa, fb = files(a), files(b)
    diffs = [f"only in incremental: {p}" for p in sorted(fa - fb)]
    diffs += [f"only in clean: {p}" for p in sorted(fb - fa)]
    from compiler.provenance.reproducible import reproducible_view

    for p in sorted(fa & fb):
        # signed bundles: compare what they state, not their per-run signature
        if reproducible_view(p, (a / p).read_bytes()) != reproducible_view(p, (b / p).read_bytes()):
            diffs.append(f"differs: {p}")
    return diffs


def code_version() -> str:
    """The commit the compiler was imported from (and whether the tree had local edits)."""
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "compiler",
                                "connectors"], capture_output=True, text=True).stdout.strip()
        return head + (" + local edits" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def citing_pages(wiki: Path, keys: list[str]) -> set[str]:
    """Pages the records' stored claims land on or mention (what a change may touch)."""
    from compiler.build import wiki_state

    st = wiki_state(wiki)
    try:
        out: set[str] = set()
        for k in keys:
            out |= st.claim_touch_set(k)[1]
        return out
    finally:
        st.close()


def cpu_seconds() -> float:
    """User + system CPU of this process and of its finished children (the compile's
    workers): what a compile costs, steadier than wall time on a shared machine."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def settle_disk(seconds: float = 5.0) -> None:
    """Flush what deleting the previous run's wikis left to write back. On this VM's disk,
    creating files while ~10^5 deletions are still being written back costs several times
    what it costs on a quiet disk; that would be measured as compile time. Where the bench
    may (root), it also drops the kernel's page, dentry and inode caches: here the kernel CPU
    of one file creation drifted from 35 to 740 µs over successive runs and came back to
    35 µs only after a drop, so without it later runs pay for earlier ones."""
    os.sync()
    try:
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except OSError:
        pass
    time.sleep(seconds)


def measure(n: int, root: Path, seed: int, profile: bool) -> dict[str, Any]:
    import gc

    from compiler.build import compile_wiki
    from compiler.settings import FolioSettings

    global _SAMPLER
    _SAMPLER = RssSampler()

    corpus, wiki, clean = root / "corpus", root / "wiki", root / "wiki-clean"
    index = json.loads((root / "records.json").read_text())
    for p in (wiki, clean):
        if p.exists():
            shutil.rmtree(p)
    settle_disk()
    res: dict[str, Any] = {"n": n, "records_indexed": len(index), "code": code_version()}

    if profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        rep = compile_wiki(corpus, wiki, full=True, today=TODAY)
        prof.disable()
        res["profiled_clean_s"] = time.perf_counter() - t0
        out = root / "clean.prof"
        prof.dump_stats(out)
        for order in ("cumulative", "tottime"):
            print(f"\n==== top 40 by {order} (clean compile, N={n}, {res['profiled_clean_s']:.1f} s "
                  f"under cProfile) ====", flush=True)
            pstats.Stats(prof, stream=sys.stdout).sort_stats(order).print_stats(40)
        res["records_seen"] = rep.records_seen
        return res

    # 1. clean compile
    gc.collect()
    cpu0 = cpu_seconds()
    t0 = time.perf_counter()
    rep = compile_wiki(corpus, wiki, full=True, today=TODAY)
    res["clean_s"] = time.perf_counter() - t0
    res["clean_cpu_s"] = cpu_seconds() - cpu0
    res["records_seen"], res["errors"] = rep.records_seen, [str(e) for e in rep.errors[:10]]
    res["n_errors"] = len(rep.errors)
    res["pages_total"], res["claims_total"] = rep.pages_total, rep.claims_total
    res["conflicts_resolved"], res["conflicts_open"] = rep.conflicts_resolved, rep.conflicts_open
    res["files"] = rep.files_seen
    res["rss_after_clean_mib"] = rss_mib()
    log(f"N={n}: clean {res['clean_s']:.1f} s, {rep.records_seen} records, {rep.pages_total} pages, "
        f"{rep.claims_total} claims, {rep.conflicts_resolved} resolved / {rep.conflicts_open} open "
        f"conflicts, {len(rep.errors)} rejected, peak RSS {res['rss_after_clean_mib']:.0f} MiB, "
        f"CPU {res['clean_cpu_s']:.1f} s ({1000 * res['clean_cpu_s'] / n:.2f} ms per record, "
        f"all processes)")
    if n <= SERIAL_COMPARE_MAX_N:
        # the same clean compile in one process, right after, for the worker speed-up
        serial = root / "wiki-serial"
        shutil.rmtree(serial, ignore_errors=True)
        gc.collect()
        t0 = time.perf_counter()
        compile_wiki(corpus, serial, FolioSettings(workers=1), full=True, today=TODAY)
        res["clean_serial_s"] = time.perf_counter() - t0
        shutil.rmtree(serial, ignore_errors=True)
        log(f"N={n}: clean in one process {res['clean_serial_s']:.1f} s")

    rng = random.Random(seed * 7 + n)
    rev = 0
    # 2. three single-record edits
    singles = []
    pool = [e for e in index]
    for k in range(3):
        e = pool[rng.randrange(len(pool))]
        while any(s["key"] == e["key"] for s in singles):
            e = pool[rng.randrange(len(pool))]
        before = citing_pages(wiki, [e["key"]])
        rev += 1
        edit_records(corpus, [e], rev)
        t0 = time.perf_counter()
        r = compile_wiki(corpus, wiki, today=TODAY)
        dt = time.perf_counter() - t0
        citing = before | citing_pages(wiki, [e["key"]])
        outside = sorted(set(r.written) - citing)
        singles.append({"key": e["key"], "file": e["file"], "kind": f"{e['system']}/{e['kind']}",
                        "s": dt, "files_changed": r.files_changed,
                        "extracted": r.records_extracted, "relinked": r.records_relinked,
                        "rendered": r.pages_rendered, "written": r.pages_written,
                        "removed": r.pages_removed, "citing": len(citing),
                        "written_outside_citing": outside,
                        "rendered_le_citing": r.pages_rendered <= len(citing)})
        log(f"N={n}: 1-record edit #{k + 1} ({e['system']}/{e['kind']} in {e['file']}): {dt:.3f} s, "
            f"{r.records_extracted} re-extracted, {r.records_relinked} relinked, "
            f"{r.pages_rendered} rendered, {r.pages_written} written, {len(citing)} pages cite it")
    res["singles"] = singles
    med = sorted(singles, key=lambda s: s["s"])[1]
    res["single_median"] = med

    # 3. 1 % of the records, spread over files
    m = max(1, n // 100)
    picks = rng.sample(index, m)
    rev += 1
    edit_records(corpus, picks, rev)
    t0 = time.perf_counter()
    r = compile_wiki(corpus, wiki, today=TODAY)
    res["pct"] = {"s": time.perf_counter() - t0, "edited": m, "files_edited": len({p["file"] for p in picks}),
                  "files_changed": r.files_changed, "extracted": r.records_extracted,
                  "relinked": r.records_relinked, "rendered": r.pages_rendered,
                  "written": r.pages_written, "removed": r.pages_removed}
    log(f"N={n}: 1% edit ({m} records in {res['pct']['files_edited']} files): {res['pct']['s']:.2f} s, "
        f"{r.records_extracted} re-extracted, {r.records_relinked} relinked, {r.pages_rendered} "
        f"rendered, {r.pages_written} written")

    # 4. no change
    t0 = time.perf_counter()
    r = compile_wiki(corpus, wiki, today=TODAY)
    res["noop"] = {"s": time.perf_counter() - t0, "files_changed": r.files_changed,
                   "extracted": r.records_extracted, "rendered": r.pages_rendered,
                   "written": r.pages_written}
    log(f"N={n}: no-change recompile: {res['noop']['s']:.2f} s, {r.records_extracted} re-extracted, "
        f"{r.pages_written} written")
    res["peak_rss_mib"] = rss_mib()

    # 5. incremental == clean rebuild of the final corpus
    t0 = time.perf_counter()
    r = compile_wiki(corpus, clean, full=True, today=TODAY)
    res["verify_clean_s"] = time.perf_counter() - t0
    diffs = compare_trees(wiki, clean)
    res["diffs"] = diffs[:50]
    res["n_diffs"] = len(diffs)
    res["equal"] = not diffs
    res["peak_rss_with_verify_mib"] = rss_mib()
    log(f"N={n}: incremental wiki {'==' if not diffs else '!='} clean rebuild "
        f"({len(diffs)} differing files)")
    return res


# ---------------------------------------------------------------------------------------------
# driver
# ---------------------------------------------------------------------------------------------
def run_child(args: list[str]) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), *args]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, cwd=REPO)
    result = None
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT "):])
        else:
            print(line, flush=True)
    if proc.returncode != 0 or result is None:
        raise SystemExit(f"child {' '.join(args)} failed (exit {proc.returncode})")
    return result


def print_table(results: list[dict[str, Any]]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=200)
    t = Table(title="Folio compile benchmark (offline backend)", show_lines=False)
    cols = ["N", "clean s", "clean rec/s", "CPU ms/rec", "1 process rec/s", "1-rec incr s (median)", "re-extracted", "pages re-rendered",
            "pages written", "1% incr s", "1% re-extracted", "1% pages written", "no-op s",
            "peak RSS MiB", "incr == clean"]
    for c in cols:
        t.add_column(c, justify="right")
    for r in results:
        med, pct = r["single_median"], r["pct"]
        serial = r.get("clean_serial_s")
        cpu = r.get("clean_cpu_s")
        t.add_row(f"{r['n']:,}", f"{r['clean_s']:.1f}", f"{r['n'] / r['clean_s']:,.0f}",
                  f"{1000 * cpu / r['n']:.2f}" if cpu else "—",
                  f"{r['n'] / serial:,.0f}" if serial else "—",
                  f"{med['s']:.3f}", str(med["extracted"]), str(med["rendered"]), str(med["written"]),
                  f"{pct['s']:.2f}", f"{pct['extracted']:,}", f"{pct['written']:,}",
                  f"{r['noop']['s']:.2f}", f"{r['peak_rss_mib']:,.0f}",
                  "OK" if r["equal"] else f"FAIL ({r['n_diffs']})")
    console.print(t)

    d = Table(title="1-record edits (each run)")
    for c in ["N", "record", "file", "s", "files changed", "re-extracted", "relinked", "rendered",
              "written", "pages citing it", "only citing pages?"]:
        d.add_column(c, justify="right")
    for r in results:
        for s in r["singles"]:
            ok = not s["written_outside_citing"] and s["rendered_le_citing"]
            d.add_row(f"{r['n']:,}", s["kind"], s["file"], f"{s['s']:.3f}", str(s["files_changed"]),
                      str(s["extracted"]), str(s["relinked"]), str(s["rendered"]), str(s["written"]),
                      str(s["citing"]), "OK" if ok else f"NO: {s['written_outside_citing'][:5]}")
    console.print(d)

    g = Table(title="Targets")
    for c in ["N", "target", "measured", "met?"]:
        g.add_column(c)
    for r in results:
        rate = r["n"] / r["clean_s"]
        g.add_row(f"{r['n']:,}", f"clean ≥ {TARGET_RATE:,.0f} records/s", f"{rate:,.0f} records/s",
                  "yes" if rate >= TARGET_RATE else "NO")
        med = r["single_median"]
        only = all(not s["written_outside_citing"] and s["rendered_le_citing"] for s in r["singles"])
        label = "1-record change < 1 s" + (" (target stated at 100k)" if r["n"] != 100_000 else "")
        g.add_row("", label, f"{med['s']:.3f} s (median of 3)", "yes" if med["s"] < TARGET_INCR_S else "NO")
        g.add_row("", "1-record change touches only pages citing it",
                  "written ⊆ citing, rendered ≤ citing" if only else "pages outside the citing set",
                  "yes" if only else "NO")
        label = f"peak RSS < 2 GiB" + (" (target stated at 100k)" if r["n"] != 100_000 else "")
        g.add_row("", label, f"{r['peak_rss_mib']:,.0f} MiB (with verify rebuild: "
                  f"{r['peak_rss_with_verify_mib']:,.0f})", "yes" if r["peak_rss_mib"] < TARGET_RSS_MIB else "NO")
        g.add_row("", "incremental wiki == clean rebuild", f"{r['n_diffs']} differing files",
                  "OK" if r["equal"] else "FAIL")
    console.print(g)
    for r in results:
        print(f"N={r['n']:,} (code {r.get('code', '?')}): {r['records_seen']:,} records in {r['files']:,} files, "
              f"{r['pages_total']:,} pages, {r['claims_total']:,} claims, conflicts "
              f"{r['conflicts_resolved']:,} resolved / {r['conflicts_open']:,} open, "
              f"{r['n_errors']} inputs rejected; 1%: {r['pct']['edited']} records in "
              f"{r['pct']['files_edited']} files, {r['pct']['rendered']:,} pages re-rendered; "
              f"no-op: {r['noop']['extracted']} re-extracted, {r['noop']['written']} written")
        if r["errors"]:
            print("  first rejected inputs:", *r["errors"], sep="\n    ")
        if not r["equal"]:
            print(f"  FAIL: incremental != clean at N={r['n']:,}; differing files:")
            for line in r["diffs"]:
                print("   ", line)
        else:
            print(f"  OK: incremental wiki equals a clean rebuild of the final corpus (N={r['n']:,})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, nargs="+", default=[10_000, 100_000], help="corpus sizes")
    ap.add_argument("--workdir", type=Path, default=None, help="default: a temporary folder")
    ap.add_argument("--keep", action="store_true", help="keep the generated corpora and wikis")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--profile", action="store_true",
                    help="only profile the clean compile with cProfile (stats to <workdir>/N*/clean.prof)")
    ap.add_argument("--json", type=Path, default=None, help="also write the results here")
    ap.add_argument("--_generate", nargs=2, metavar=("N", "DIR"), help=argparse.SUPPRESS)
    ap.add_argument("--_measure", nargs=2, metavar=("N", "DIR"), help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args._generate:
        n, root = int(args._generate[0]), Path(args._generate[1])
        t0 = time.perf_counter()
        index = generate(n, root / "corpus", args.seed)
        (root / "records.json").write_text(json.dumps(index))
        log(f"N={n}: generated {len(index):,} records in {time.perf_counter() - t0:.1f} s")
        print("RESULT " + json.dumps({"records": len(index)}))
        return
    if args._measure:
        n, root = int(args._measure[0]), Path(args._measure[1])
        res = measure(n, root, args.seed, args.profile)
        print("RESULT " + json.dumps(res))
        return

    tmp = None
    if args.workdir is None:
        tmp = Path(tempfile.mkdtemp(prefix="folio-bench-"))
        workdir = tmp
    else:
        workdir = args.workdir
        workdir.mkdir(parents=True, exist_ok=True)
    results = []
    try:
        for n in args.n:
            root = workdir / f"n{n}"
            root.mkdir(parents=True, exist_ok=True)
            run_child(["--_generate", str(n), str(root), "--seed", str(args.seed)])
            res = run_child(["--_measure", str(n), str(root), "--seed", str(args.seed)]
                            + (["--profile"] if args.profile else []))
            if args.profile:
                print(f"N={n}: profiled clean compile {res['profiled_clean_s']:.1f} s "
                      f"({res['records_seen']:,} records); stats in {root / 'clean.prof'}")
                continue
            results.append(res)
            if not (args.keep or args.profile):
                shutil.rmtree(root, ignore_errors=True)
        if results:
            print_table(results)
            if args.json:
                args.json.write_text(json.dumps(results, indent=1))
    finally:
        if tmp is not None and not (args.keep or args.profile):
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"workdir kept: {workdir}")
    if any(not r["equal"] for r in results):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
