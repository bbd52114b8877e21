"""The markdown handbook: site notes (one without `updated`), a bulletin, key accounts, service
plans."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from . import payloads as P
from .base import BuilderBase
from .common import Account, MD_INST, NOW, PLANS, SITES, _pg, key
from .phrasing import duration_text


class HandbookMixin(BuilderBase):
    def handbook(self) -> None:
        r, T = self.rng, self.truth
        cut = {s[0]: r.choice(["13:00", "14:00", "15:30", "16:00"]) for s in SITES}
        docks = {s[0]: r.choice(["06:00-22:00", "07:00-19:00", "05:30-21:30"]) for s in SITES}
        t_dates = {}
        for i, (site, stem) in enumerate(SITES):
            k = key("markdown", MD_INST, "doc", stem)
            page = T.entity(_pg("site", site), "site", site)
            lines = [f"# {site}", "", f"{site} stores finished devices and spare parts for the region.", ""]
            cap = self.site_capacity[site]
            style = r.choice(["kv", "bullets", "sentences", "deflist"])
            facts = [("pallet capacity", "number", str(cap), f"{cap:,}", ["Pallet capacity", "Pallet positions"]),
                     ("dispatch cutoff", "text", cut[site], cut[site], ["Same-day dispatch cut-off", "Dispatch cut-off"]),
                     ("dock hours", "text", docks[site], docks[site], ["Dock hours", "Receiving hours"])]
            for attr, vt, norm, shown, labels in facts:
                if style == "kv":
                    line = f"{r.choice(labels)}: {shown}"
                elif style == "bullets":
                    line = f"- {r.choice(labels)}: {shown}"
                elif style == "deflist":  # Markdown Extra / Pandoc definition list
                    line = f"{r.choice(labels)}\n:   {shown}\n"
                else:
                    line = self.prose(attr, E=site, V=shown)
                lines.append(line)
                T.fact(page, attr, vt, norm, " ".join(line.lstrip("- ").split()), "prose", k)
            meta: dict[str, Any] = {"title": site, "type": "site"}
            if i < 2:
                d = (NOW - timedelta(days=r.randrange(30, 60))).date()
                meta["updated"] = d
                t_dates[site] = d
            self.files[f"handbook/{stem}.md"] = P.markdown(meta, "\n".join(lines))
        # A11: the Jira comment on capacity loses to the handbook
        s0 = SITES[0][0]
        wrong_cap, k8, s_cap = self.site_cap_loser
        T.fact(_pg("site", s0), "pallet capacity", "number", str(wrong_cap), s_cap, "prose", k8)
        self._authority(_pg("site", s0), "pallet capacity", "number", str(self.site_capacity[s0]),
                        [key("markdown", MD_INST, "doc", SITES[0][1])], [(str(wrong_cap), k8)],
                        "handbook (45) over field-service tickets (30)")
        # R7: a newer bulletin changes the dock hours of the second site
        s1, stem1 = SITES[1]
        newer = (datetime.combine(t_dates[s1], datetime.min.time()) + timedelta(days=r.randrange(5, 20))).date()
        new_dock = "06:30-20:30" if docks[s1] != "06:30-20:30" else "07:30-18:30"
        sent = self.prose("dock hours", E=s1, V=new_dock)
        kb = key("markdown", MD_INST, "doc", "warehouse-bulletin")
        T.entity(_pg("topic", "Warehouse Bulletin"), "topic", "Warehouse Bulletin")
        T.fact(_pg("site", s1), "dock hours", "text", new_dock, sent, "prose", kb)
        self._recency(_pg("site", s1), "dock hours", "text",
                      (new_dock, kb, datetime.combine(newer, datetime.min.time(), UTC)),
                      [(docks[s1], key("markdown", MD_INST, "doc", stem1),
                        datetime.combine(t_dates[s1], datetime.min.time(), UTC))],
                      "handbook (45, tiebreak recency): front matter `updated`")
        # C3: capacity of the site whose note has no `updated`, restated with a date elsewhere
        s2, stem2 = SITES[2]
        other_cap = self.site_capacity[s2] + 400
        sent2 = self.prose("pallet capacity", E=s2, V=f"{other_cap:,}")
        T.fact(_pg("site", s2), "pallet capacity", "number", str(other_cap), sent2, "prose", kb)
        self._contested(_pg("site", s2), "pallet capacity", "number",
                        [(str(self.site_capacity[s2]), key("markdown", MD_INST, "doc", stem2)),
                         (str(other_cap), kb)],
                        "handbook (tiebreak recency) but the site note has no `updated`: no timestamp")
        self.files["handbook/warehouse-bulletin.md"] = P.markdown(
            {"title": "Warehouse Bulletin", "type": "topic", "updated": newer},
            f"# Warehouse Bulletin\n\nChanges for the logistics network this month.\n\n- {sent}\n- {sent2}\n")
        # key accounts: account managers and renewal dates in prose (restricted to sales)
        k = key("markdown", MD_INST, "doc", "key-accounts")
        lines = ["# Key Accounts", "", "Account teams for our largest customers. Salesforce remains the system of record.", ""]
        self.managers = {}
        for j, a in enumerate(self.accounts[:6]):
            mgr = self.people[-1 - (j % 4)]
            self.managers[a.sf_name] = mgr
            s = self.prose("account manager", E=a.hs_name, V=mgr)
            lines.append(s)
            T.fact(a.page, "account manager", "text", mgr, s, "prose", k)
            if j < 3:
                d = datetime.fromisoformat(a.renewal)
                shown = r.choice([a.renewal, f"{d:%B} {d.day}, {d.year}", f"{d.day} {d:%B} {d.year}"])
                s = self.prose("renewal date", E=a.hs_name, V=shown)
                lines.append(s)
                T.fact(a.page, "renewal date", "date", a.renewal, s, "prose", k)
        self.files["handbook/key-accounts.md"] = P.markdown(
            {"title": "Key Accounts", "type": "topic", "updated": (NOW - timedelta(days=9)).date(),
             "acl": {"groups": ["sales"]}}, "\n".join(lines))
        T.entity(_pg("topic", "Key Accounts"), "topic", "Key Accounts")
        T.restricted.append({"source": k, "page": _pg("topic", "Key Accounts"), "acl": {"groups": ["sales"]},
                             "denied": ["lee", "kim", "omar", "ines"], "allowed": ["sven"],
                             "facts_on": [a.page for a in self.accounts[:6]]})
        # service plans at a glance: agrees with the policy in other words (no conflict)
        k = key("markdown", MD_INST, "doc", "service-plans")
        T.entity(_pg("topic", "Service Plans at a Glance"), "topic", "Service Plans at a Glance")
        items = []
        for plan in PLANS:
            v = duration_text(r, self.onsite[plan], "hours")
            s = r.choice([f"- {plan}: engineer on site within {v} under the [[Field Service Policy]]",
                          f"- {plan} — on-site response of {v} per the [[Field Service Policy]]"])
            items.append(s)
        self.files["handbook/service-plans.md"] = P.markdown(
            {"title": "Service Plans at a Glance", "type": "topic",
             "updated": (NOW - timedelta(days=21)).date()},
            "# Service Plans at a Glance\n\nA summary for new staff; the policy is binding.\n\n" + "\n".join(items))
