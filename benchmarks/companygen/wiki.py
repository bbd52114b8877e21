"""Confluence spaces OPS (policies), PROD (products, prices) and ENG (engineering notes): storage
XHTML with tables, lists and definition lists."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from . import payloads as P
from .base import BuilderBase
from .common import (Account, CONF_BASE, CONF_INST, PLANS, Product, SF_INST, _pg, dur, key,
                     ts_confluence)
from .phrasing import duration_adjective, duration_text, fill, money_text


class ConfluenceMixin(BuilderBase):
    def confluence(self) -> None:
        self.conf_ops()
        self.conf_prod()
        self.conf_eng()

    def _page_key(self, pid: str) -> str:
        return key("confluence", CONF_INST, "page", pid)

    def _plan_block(self, attr: str, values: dict[str, int], unit: str, page: str, k: str,
                    phrases: list[str], layout: str) -> str:
        r, T = self.rng, self.truth
        P_ = r.choice(phrases)
        out = []
        if layout == "bullets":
            out.append(f"<h2>{P_[0].upper() + P_[1:]}</h2><ul>")
            for plan in PLANS:
                v = duration_text(r, values[plan], unit)
                item = r.choice([f"{plan}: {v}", f"{plan} customers: {v}", f"{plan} plan — {v}",
                                 f"{plan}: up to {v}"])
                out.append(f"<li>{item}</li>")
                T.fact(page, attr, "duration", dur(values[plan], unit), item, "prose", k,
                       {"service plan": plan})
            out.append("</ul>")
        else:
            sentences = []
            for plan in PLANS:
                v = duration_text(r, values[plan], unit)
                s = self.prose(attr, V=v, A=duration_adjective(values[plan], unit), Q=plan, P=P_)
                sentences.append(s)
                T.fact(page, attr, "duration", dur(values[plan], unit), s, "prose", k,
                       {"service plan": plan})
            out.append("<p>" + " ".join(sentences) + "</p>")
        return "".join(out)

    def _plan_table(self, attrs: list[tuple[str, dict[str, int], str, str]], page: str, k: str) -> str:
        """Header row × row label: service plans down, attributes across."""
        r, T = self.rng, self.truth
        head = "".join(f"<th>{label}</th>" for _, _, _, label in attrs)
        rows = []
        for plan in PLANS:
            cells = []
            for attr, values, unit, label in attrs:
                v = duration_text(r, values[plan], unit, allow_words=False)
                cells.append(f"<td>{v}</td>")
                T.fact(page, attr, "duration", dur(values[plan], unit), f"{label} | {plan} | {v}",
                       "prose", k, {"service plan": plan})
            rows.append(f"<tr><th>{plan}</th>{''.join(cells)}</tr>")
        return (f"<table><tbody><tr><th>Service plan</th>{head}</tr>{''.join(rows)}"
                "</tbody></table>")

    def conf_ops(self) -> None:
        r, T = self.rng, self.truth
        pages = []
        # Field Service Policy
        pid = "52001"
        k = self._page_key(pid)
        fsp = T.entity(self.policy_page["Field Service Policy"], "policy", "Field Service Policy")
        body = ["<p>This policy sets how Corvane Medical services installed devices at customer sites.</p>"]
        if r.random() < 0.4:
            body.append(self._plan_table([
                ("on-site response time", self.onsite, "hours", r.choice(["On-site response", "Engineer on site"])),
                ("loaner turnaround", self.loaner, "days", r.choice(["Loaner delivery", "Loaner turnaround"]))],
                fsp, k))
        else:
            body.append(self._plan_block("on-site response time", self.onsite, "hours", fsp, k,
                                         ["on-site response time", "engineer arrival time", "response on site"],
                                         r.choice(["bullets", "sentences"])))
            body.append(self._plan_block("loaner turnaround", self.loaner, "days", fsp, k,
                                         ["loaner turnaround", "loaner delivery time"],
                                         r.choice(["bullets", "sentences"])))
        body.append("<p>Field engineers log every visit in Jira before they leave the site.</p>")
        pages.append(P.confluence_page(CONF_BASE, pid=pid, title="Field Service Policy", space="OPS",
                                       space_name="Operations", when=ts_confluence(self.when(40)),
                                       number=9, author="Birgit Halvorsen",
                                       labels=["approved", "policy"], body="".join(body)))
        self.fsp_key = k
        # Device Returns Policy
        pid = "52002"
        k = self._page_key(pid)
        drp = T.entity(self.policy_page["Device Returns Policy"], "policy", "Device Returns Policy")
        body = ["<p>How customers return devices they no longer need and how refunds are made.</p>"]
        body.append(self._plan_block("rma window", self.rma, "days", drp, k,
                                     ["RMA window", "return window", "return authorisation period"],
                                     r.choice(["bullets", "sentences", "sentences"])))
        fee = self.prose("restocking fee", V=r.choice([f"{self.restock}%", f"{self.restock} percent"]))
        T.fact(drp, "restocking fee", "percent", str(self.restock), fee, "prose", k)
        body.append(f"<p>{fee} Returned units go to the <ac:link><ri:page ri:content-title=\"Rotterdam Distribution Hub\" /></ac:link> for inspection.</p>")
        pages.append(P.confluence_page(CONF_BASE, pid=pid, title="Device Returns Policy", space="OPS",
                                       space_name="Operations", when=ts_confluence(self.when(35)),
                                       number=6, author="Carlos Mendes",
                                       labels=["approved", "policy"], body="".join(body)))
        self.drp_key = k
        # Draft revision, labelled approved *and* draft: the label exclusion must keep it low
        pid = "52004"
        k4 = self._page_key(pid)
        draft_val = max(self.rma.values()) + 30
        dv = duration_text(r, draft_val, "days")
        s = fill(r.choice([
            "Under the Device Returns Policy, Gold customers may return a device within {V} of delivery.",
            "The Device Returns Policy will give Gold customers a return window of {V}.",
            "Proposed for the Device Returns Policy: Gold accounts get up to {V} to send devices back."]), V=dv)
        T.entity(_pg("policy", "Device Returns Policy 2027 Revision"), "policy",
                 "Device Returns Policy 2027 Revision")
        T.fact(drp, "rma window", "duration", dur(draft_val, "days"), s, "prose", k4, {"service plan": "Gold"})
        self._authority(drp, "rma window", "duration", dur(self.rma["Gold"], "days"), [self.drp_key],
                        [(dur(draft_val, "days"), k4)],
                        "approved-policy (100) over a page labelled approved and draft (label exclusion: confluence-other 60)",
                        {"service plan": "Gold"})
        pages.append(P.confluence_page(CONF_BASE, pid=pid, title="Device Returns Policy 2027 Revision",
                                       space="OPS", space_name="Operations",
                                       when=ts_confluence(self.when(6)), number=2, author="Carlos Mendes",
                                       labels=["approved", "draft", "policy"],
                                       body=f"<p>Draft for review by Finance. {s}</p>"))
        # Customer Credit Terms: restricted to finance; a table of accounts × terms
        pid = "52003"
        k = self._page_key(pid)
        cct = T.entity(self.policy_page["Customer Credit Terms"], "policy", "Customer Credit Terms")
        rows = []
        self.credit = {}
        for a in self.accounts[:5]:
            days = r.choice([30, 45, 60, 90])
            limit = r.randrange(5, 80) * 10_000
            dtext = r.choice([f"NET {days}", f"{days} days", f"net {days} days"])
            ltext = money_text(r, limit)
            self.credit[a.sf_name] = (days, limit)
            rows.append(f"<tr><td>{a.sf_name}</td><td>{dtext}</td><td>{ltext}</td></tr>")
            T.fact(a.page, "payment terms", "duration", dur(days, "days"), dtext, "prose", k)
            T.fact(a.page, "credit limit", "money", f"{limit} USD", ltext, "prose", k)
        T.restricted.append({"source": k, "page": cct, "acl": {"groups": ["finance"]},
                             "denied": ["kim", "omar", "lee", "sven"], "allowed": ["ines"],
                             "facts_on": [a.page for a in self.accounts[:5]]})
        head = r.choice([("Customer", "Payment terms", "Credit limit"),
                         ("Account", "Terms of payment", "Credit line")])
        body = ("<p>Credit terms agreed with customers. Finance only.</p><table><tbody><tr>"
                + "".join(f"<th>{h}</th>" for h in head) + "</tr>" + "".join(rows) + "</tbody></table>")
        pages.append(P.confluence_page(CONF_BASE, pid=pid, title="Customer Credit Terms", space="OPS",
                                       space_name="Operations", when=ts_confluence(self.when(28)),
                                       number=3, author="Julia Brandt",
                                       labels=["approved", "finance", "policy"], body=body,
                                       groups=["finance"]))
        self.files["confluence/ops.json"] = P.confluence_list(CONF_BASE, "OPS", pages)

    def conf_prod(self) -> None:
        r, T = self.rng, self.truth
        pages = []
        self.prod_keys = {}
        for i, p in enumerate(self.products):
            pid = str(61001 + i)
            k = self._page_key(pid)
            self.prod_keys[p.name] = k
            rows = [("Product code", p.code, "product code", "text", p.code)]
            sentences = []
            # battery runtime: on the page unless the product takes part in a Jira/ENG case
            if p is not self.p_r2 and p is not self.p_r3:
                v = duration_text(r, p.battery, "hours")
                if r.random() < 0.4:
                    rows.append((r.choice(["Battery runtime", "Runtime on battery", "Battery life"]), v,
                                 "battery runtime", "duration", dur(p.battery, "hours")))
                else:
                    s = self.prose("battery runtime", E=p.name, V=v)
                    sentences.append(s)
                    T.fact(p.page, "battery runtime", "duration", dur(p.battery, "hours"), s, "prose", k)
            # calibration interval only where no ENG/Jira case is about it
            if p is self.p_a9 or p is self.p_c1:
                v = duration_text(r, p.calibration, "months")
                s = self.prose("calibration interval", E=p.name, V=v)
                sentences.append(s)
                T.fact(p.page, "calibration interval", "duration", dur(p.calibration, "months"), s, "prose", k)
            # warranty
            w = p.warranty
            if p is self.p_a8:
                w = p.warranty + 12
                self._authority(p.page, "warranty period", "duration", dur(p.warranty, "months"),
                                [key("salesforce", SF_INST, "Product2", p.sf_id)],
                                [(dur(w, "months"), k)], "Salesforce Product2 (80) over the product page (product-specs 70)")
            wv = r.choice([duration_text(r, w, "months"), f"{w // 12} years" if w % 12 == 0 and w > 12 else duration_text(r, w, "months")])
            s = self.prose("warranty period", E=p.name, V=wv, A=duration_adjective(w, "months"))
            sentences.append(s)
            T.fact(p.page, "warranty period", "duration", dur(w, "months"), s, "prose", k)
            if p is self.p_c1:  # list price also on the pricing page, differently: contested
                v = money_text(r, p.price + 250)
                s = self.prose("list price", E=p.name, V=v)
                sentences.append(s)
                T.fact(p.page, "list price", "money", f"{p.price + 250} USD", s, "prose", k)
            if p is self.p_r1:  # list price also on the pricing page, the same amount
                # written another way: an agreement, never a contradiction
                v = money_text(r, p.price)
                s = self.prose("list price", E=p.name, V=v)
                sentences.append(s)
                T.fact(p.page, "list price", "money", f"{p.price} USD", s, "prose", k)
            table = "".join(f"<tr><th>{lab}</th><td>{val}</td></tr>" for lab, val, *_ in rows)
            for lab, val, attr, vt, norm in rows:
                T.fact(p.page, attr, vt, norm, f"{lab}: {val}", "prose", k)
            layout = r.random()
            if layout < 0.25:
                dl = "".join(f"<dt>{lab}</dt><dd>{val}</dd>" for lab, val, *_ in rows)
                props = f"<dl>{dl}</dl>"
            else:
                props = f"<table><tbody>{table}</tbody></table>"
            body = (f"<p>{p.name} is a {p.dclass} medical device made by Corvane Medical.</p>{props}"
                    f"<h2>Service</h2><p>{' '.join(sentences)}</p>"
                    "<p>Field service follows the <ac:link><ri:page ri:content-title=\"Field Service Policy\" /></ac:link>.</p>")
            pages.append(P.confluence_page(CONF_BASE, pid=pid, title=p.name, space="PROD",
                                           space_name="Products", when=ts_confluence(self.when(r.uniform(20, 60))),
                                           number=r.randrange(2, 15), author="Hana Kobayashi",
                                           labels=["product"], body=body))
        # pricing page: a multi-entity table or sentences
        pid = "61101"
        k = self._page_key(pid)
        T.entity(_pg("topic", "Device Price List 2027"), "topic", "Device Price List 2027")
        body = ["<p>List prices for orders placed from 1 January 2027, excluding VAT and freight.</p>"]
        if r.random() < 0.5:
            rows = []
            for p in self.products:
                v = money_text(r, p.price)
                rows.append(f"<tr><td>{p.name}</td><td>{v}</td></tr>")
                T.fact(p.page, "list price", "money", f"{p.price} USD", f"{p.name} | {v}", "prose", k)
            head = r.choice(["List price", "Price per unit", "Unit list price"])
            body.append(f"<table><tbody><tr><th>Device</th><th>{head}</th></tr>{''.join(rows)}</tbody></table>")
        else:
            items = []
            for p in self.products:
                v = money_text(r, p.price)
                s = self.prose("list price", E=p.name, V=v)
                items.append(f"<li>{s}</li>")
                T.fact(p.page, "list price", "money", f"{p.price} USD", s, "prose", k)
            body.append(f"<ul>{''.join(items)}</ul>")
        pc = self.p_c1
        self._contested(pc.page, "list price", "money",
                        [(f"{pc.price} USD", k), (f"{pc.price + 250} USD", self.prod_keys[pc.name])],
                        "two product-specs pages (rank 70, no tiebreak) disagree")
        pages.append(P.confluence_page(CONF_BASE, pid=pid, title="Device Price List 2027", space="PROD",
                                       space_name="Products", when=ts_confluence(self.when(25)),
                                       number=4, author="Julia Brandt", labels=["pricing"],
                                       body="".join(body)))
        # comparison page: battery runtime of p_c2 differs (contested); warranty agrees in
        # another spelling (must NOT be a contradiction)
        pid = "61102"
        k = self._page_key(pid)
        T.entity(_pg("topic", "Monitoring Portfolio Comparison"), "topic", "Monitoring Portfolio Comparison")
        p2 = self.p_c2
        other = p2.battery + r.choice([2, 4])
        s1 = self.prose("battery runtime", E=p2.name, V=duration_text(r, other, "hours"))
        T.fact(p2.page, "battery runtime", "duration", dur(other, "hours"), s1, "prose", k)
        self._contested(p2.page, "battery runtime", "duration",
                        [(dur(p2.battery, "hours"), self.prod_keys[p2.name]), (dur(other, "hours"), k)],
                        "product page and comparison page (both product-specs 70, no tiebreak) disagree")
        agree = next(p for p in self.products if p is not self.p_a8 and p.warranty % 12 == 0) \
            if any(p is not self.p_a8 and p.warranty % 12 == 0 for p in self.products) else self.p_r1
        yrs = agree.warranty // 12
        wtext = f"{yrs}-year" if yrs > 1 else "one-year"
        s2 = f"Every {agree.name} ships with a {wtext} warranty."
        T.fact(agree.page, "warranty period", "duration", dur(agree.warranty, "months"), s2, "prose", k)
        pages.append(P.confluence_page(CONF_BASE, pid=pid, title="Monitoring Portfolio Comparison",
                                       space="PROD", space_name="Products",
                                       when=ts_confluence(self.when(18)), number=3, author="Hana Kobayashi",
                                       labels=["comparison"], body=f"<p>{s1}</p><p>{s2}</p>"))
        self.files["confluence/prod.json"] = P.confluence_list(CONF_BASE, "PROD", pages)

    def conf_eng(self) -> None:
        r, T = self.rng, self.truth
        pages = []
        t1 = self.when(50)
        t2 = t1 + timedelta(days=r.randrange(5, 30), minutes=r.randrange(1, 500))
        t3 = self.when(12)
        p1, p2, p9, p6 = self.p_r1, self.p_r2, self.p_a9, self.p_c6
        old1 = p1.calibration + 3
        old2 = p2.battery + 2
        lose9 = p9.calibration + 6 if p9.calibration < 12 else p9.calibration - 6
        k1, k2, k3, k4 = (self._page_key(x) for x in ("71001", "71002", "71003", "71004"))
        s_old1 = self.prose("calibration interval", E=p1.name, V=duration_text(r, old1, "months"))
        s_old2 = self.prose("battery runtime", E=p2.name, V=duration_text(r, old2, "hours"))
        s_9 = self.prose("calibration interval", E=p9.name, V=duration_text(r, lose9, "months"))
        s_new1 = self.prose("calibration interval", E=p1.name, V=duration_text(r, p1.calibration, "months"))
        s_new2 = self.prose("battery runtime", E=p2.name, V=duration_text(r, p2.battery, "hours"))
        for page, attr, n, unit, s, k in (
                (p1.page, "calibration interval", old1, "months", s_old1, k1),
                (p2.page, "battery runtime", old2, "hours", s_old2, k1),
                (p9.page, "calibration interval", lose9, "months", s_9, k1),
                (p1.page, "calibration interval", p1.calibration, "months", s_new1, k2),
                (p2.page, "battery runtime", p2.battery, "hours", s_new2, k2)):
            T.fact(page, attr, "duration", dur(n, unit), s, "prose", k)
        self._recency(p1.page, "calibration interval", "duration",
                      (dur(p1.calibration, "months"), k2, t2), [(dur(old1, "months"), k1, t1)],
                      "engineering-notes (65, tiebreak recency): Confluence version.when")
        self._recency(p2.page, "battery runtime", "duration",
                      (dur(p2.battery, "hours"), k2, t2), [(dur(old2, "hours"), k1, t1)],
                      "engineering-notes (65, tiebreak recency): Confluence version.when")
        self._authority(p9.page, "calibration interval", "duration", dur(p9.calibration, "months"),
                        [self.prod_keys[p9.name]], [(dur(lose9, "months"), k1)],
                        "product-specs (70) over engineering-notes (65)")
        T.entity(_pg("topic", "Bench Test Report Q3"), "topic", "Bench Test Report Q3")
        T.entity(_pg("topic", "Field Bulletin FB-112"), "topic", "Field Bulletin FB-112")
        pages.append(P.confluence_page(CONF_BASE, pid="71001", title="Bench Test Report Q3", space="ENG",
                                       space_name="Engineering", when=ts_confluence(t1), number=5,
                                       author="Oskar Lind", labels=["engineering-note"],
                                       body=f"<p>Results of the third-quarter bench tests.</p><ul><li>{s_old1}</li><li>{s_old2}</li><li>{s_9}</li></ul>"))
        pages.append(P.confluence_page(CONF_BASE, pid="71002", title="Field Bulletin FB-112", space="ENG",
                                       space_name="Engineering", when=ts_confluence(t2), number=2,
                                       author="Oskar Lind", labels=["engineering-note"],
                                       body=f"<p>Supersedes earlier bench figures after the firmware update.</p><p>{s_new1} {s_new2}</p>"))
        # tie at the latest timestamp: contested
        va, vb = p6.calibration, p6.calibration + 6
        sa = self.prose("calibration interval", E=p6.name, V=duration_text(r, va, "months"))
        sb = self.prose("calibration interval", E=p6.name, V=duration_text(r, vb, "months"))
        T.fact(p6.page, "calibration interval", "duration", dur(va, "months"), sa, "prose", k3)
        T.fact(p6.page, "calibration interval", "duration", dur(vb, "months"), sb, "prose", k4)
        self._contested(p6.page, "calibration interval", "duration",
                        [(dur(va, "months"), k3), (dur(vb, "months"), k4)],
                        "engineering-notes (tiebreak recency) but both pages have the same version.when: a tie")
        T.entity(_pg("topic", "Calibration Lab Notes A"), "topic", "Calibration Lab Notes A")
        T.entity(_pg("topic", "Calibration Lab Notes B"), "topic", "Calibration Lab Notes B")
        for pid, title, s in (("71003", "Calibration Lab Notes A", sa), ("71004", "Calibration Lab Notes B", sb)):
            pages.append(P.confluence_page(CONF_BASE, pid=pid, title=title, space="ENG",
                                           space_name="Engineering", when=ts_confluence(t3), number=1,
                                           author="Tuva Nilsen", labels=["engineering-note"],
                                           body=f"<p>Lab measurement summary.</p><p>{s}</p>"))
        self.files["confluence/eng.json"] = P.confluence_list(CONF_BASE, "ENG", pages)
