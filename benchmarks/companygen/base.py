"""The core of the Corvane Medical builder: the seeded world and the helpers that every
system's writer (crm.py, wiki.py, tickets.py, handbook.py) uses; world.py composes them."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from .common import (ACCOUNT_POOL, Account, DEVICE_CLASSES, NOW, PEOPLE, PLANS, PRODUCT_POOL,
                     Product, TENANT, _pg)
from .lexicon import Lexicon
from .phrasing import ENTITY_SHAPES, QUALIFIED_SHAPES, VERB_SHAPES, fill
from .truth import Truth


class BuilderBase:
    """What every system's writer shares: the seeded world (accounts, products, people,
    policy values), the truth being recorded, and the phrasing and conflict helpers."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.seed = seed
        self.truth = Truth(corpus=f"corvane-seed-{seed}", tenant=TENANT)
        self.files: dict[str, Any] = {}
        self.lex = Lexicon(seed)
        # each seed's writers prefer some of the shapes of each family
        self.verb_shapes = {a: self.lex.shapes(s, keep=max(3, len(s) - 1))
                            for a, s in sorted(VERB_SHAPES.items())}
        self.entity_shapes = self.lex.shapes(ENTITY_SHAPES, keep=4)
        self.qualified_shapes = self.lex.shapes(QUALIFIED_SHAPES, keep=4)
        r = self.rng
        pool = ACCOUNT_POOL[:3] + r.sample(ACCOUNT_POOL[3:], 7)
        hospitals = [a for a in pool if a[5]]
        if len(hospitals) < 2:  # the contested bed count and bed-count prose need two
            extra = [a for a in ACCOUNT_POOL[3:] if a[5] and a not in pool]
            pool = pool[:10 - (2 - len(hospitals))] + extra[: 2 - len(hospitals)]
        self.accounts = [Account(*a) for a in pool]
        cities = ["Hamburg", "Gothenburg", "Boston", "Leeds", "Lyon", "Denver", "Uppsala",
                  "Porto", "Austin", "Calgary", "Dublin", "Bergen"]
        r.shuffle(cities)
        for i, a in enumerate(self.accounts):
            a.sf_id = f"0017Q00000Cv{i:02d}{r.choice('ABCDEFGH')}QAA{r.choice('KLMN')}"
            a.hs_id = str(2400100 + i * 7)
            a.zd_id = 361000100 + i
            a.page = self.truth.entity(_pg("account", a.sf_name), "account", a.sf_name,
                                       a.hs_name, a.zd_name)
            a.revenue = r.randrange(8, 900) * 1_000_000 if not a.hospital else r.randrange(40, 600) * 1_000_000
            a.employees = r.randrange(120, 9000)
            a.plan = r.choice(PLANS)
            a.renewal = (datetime(2027, 1, 1) + timedelta(days=r.randrange(0, 500))).date().isoformat()
            a.beds = r.randrange(12, 95) * 10 if a.hospital else 0
            a.city = cities[i]
        names = r.sample(PRODUCT_POOL, 6)
        self.products = [Product(n, p) for n, p in names]
        for i, p in enumerate(self.products):
            p.sf_id = f"01t7Q000009Pr{i:02d}AAC"
            p.page = self.truth.entity(_pg("product", p.name), "product", p.name)
            p.code = f"{p.prefix}-{r.randrange(100, 999)}"
            p.dclass = r.choice(list(DEVICE_CLASSES))
            p.warranty = r.choice([12, 24, 36])
            p.calibration = r.choice([3, 6, 12])
            p.battery = r.choice([4, 6, 8, 10, 12])
            p.price = r.randrange(18, 240) * 50
        self.people = r.sample(PEOPLE, len(PEOPLE))
        # product roles in the fixed scenarios (distinct products)
        (self.p_r1, self.p_r2, self.p_a9, self.p_c6, self.p_r3, self.p_c1) = self.products
        self.p_r4 = self.p_r3  # calibration interval by Jira comment times (no other source)
        self.p_c4 = self.p_r1  # current firmware, tied comment times
        self.p_a8 = self.p_r2  # warranty: Salesforce over the product page
        self.p_c2 = self.p_a9  # battery runtime on two product pages
        self.policy_values()

    # -- helpers ---------------------------------------------------------------------------

    def when(self, days_ago: float, jitter: bool = True) -> datetime:
        t = NOW - timedelta(days=days_ago)
        if jitter:
            t += timedelta(seconds=self.rng.randrange(0, 36000), milliseconds=self.rng.randrange(0, 999))
        return t

    def policy_values(self) -> None:
        r = self.rng
        self.rma = dict(zip(PLANS, sorted(r.sample([30, 45, 60, 90], 3), reverse=True), strict=True))
        self.onsite = dict(zip(PLANS, sorted(r.sample([4, 6, 8, 12, 24, 48], 3)), strict=True))
        self.loaner = dict(zip(PLANS, sorted(r.sample([1, 2, 3, 5, 7], 3)), strict=True))
        self.restock = r.choice([10, 12, 15, 20])
        self.policy_page = {
            "Field Service Policy": _pg("policy", "Field Service Policy"),
            "Device Returns Policy": _pg("policy", "Device Returns Policy"),
            "Customer Credit Terms": _pg("policy", "Customer Credit Terms"),
        }

    def prose(self, attr: str, *, E: str = "", V: str, A: str = "", Q: str = "",
              P: str | None = None) -> str:
        shapes = self.verb_shapes.get(attr)
        if Q and not shapes:
            shapes = self.qualified_shapes
        if not shapes:
            shapes = self.entity_shapes
        if not A:
            shapes = [s for s in shapes if "{A}" not in s] or shapes
        if "{P}" in "".join(shapes) and P is None:
            P = attr
        return fill(self.rng.choice(shapes), E=E, P=P or attr, V=V, A=A, Q=Q)

    @property
    def contested_hospital(self) -> Account:
        return [a for a in self.accounts if a.hospital][0]

    def _authority(self, page: str, attr: str, vt: str, value: str, sources: list[str],
                   losers: list[tuple[str, str]], note: str, quals: dict | None = None) -> None:
        self.truth.authority_conflicts.append({
            "id": f"a{len(self.truth.authority_conflicts) + 1:02d}", "page": page,
            "attribute": attr, "qualifiers": dict(quals or {}), "type": vt,
            "winner": {"value": value, "sources": sources},
            "overruled": [{"value": v, "source": s} for v, s in losers], "note": note})

    def _recency(self, page: str, attr: str, vt: str, win: tuple[str, str, datetime],
                 losers: list[tuple[str, str, datetime]], note: str, quals: dict | None = None) -> None:
        stamps = {win[1]: win[2].isoformat()}
        stamps.update({s: t.isoformat() for _, s, t in losers})
        assert all(t < win[2] for _, _, t in losers)
        self.truth.recency_conflicts.append({
            "id": f"r{len(self.truth.recency_conflicts) + 1:02d}", "page": page,
            "attribute": attr, "qualifiers": dict(quals or {}), "type": vt,
            "winner": {"value": win[0], "sources": [win[1]]},
            "overruled": [{"value": v, "source": s} for v, s, _ in losers],
            "timestamps": stamps, "note": note})

    def _contested(self, page: str, attr: str, vt: str, values: list[tuple[str, str]],
                   why: str, quals: dict | None = None) -> None:
        self.truth.contested.append({
            "id": f"c{len(self.truth.contested) + 1:02d}", "page": page, "attribute": attr,
            "qualifiers": dict(quals or {}), "type": vt,
            "values": [{"value": v, "source": s} for v, s in values], "why": why})
