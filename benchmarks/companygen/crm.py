"""Salesforce (Account, Contact, Product2, Opportunity) and HubSpot (companies, contacts, deals)
exports, with their facts and conflicts."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from . import payloads as P
from .base import BuilderBase
from .common import (Account, DEVICE_CLASSES, HS_INDUSTRY, HS_INST, PLANS, SF_INDUSTRY, SF_INST,
                     STAGES, TITLES, _pg, dur, key, ts_hs, ts_sf)
from .phrasing import number_text


class CrmMixin(BuilderBase):
    def salesforce(self) -> None:
        r, T = self.rng, self.truth
        accounts = []
        self.sf_account_when = {}
        for a in self.accounts:
            t = self.when(r.uniform(20, 70))
            self.sf_account_when[a.sf_id] = t
            k = key("salesforce", SF_INST, "Account", a.sf_id)
            desc = f"{a.sf_name} buys Corvane devices for its {a.city} operations."
            if a.hospital and a is not self.contested_hospital:
                sentence = self.prose("bed count", E=a.sf_name, V=number_text(r, a.beds))
                desc += " " + sentence
                T.fact(a.page, "bed count", "number", str(a.beds), sentence, "prose", k)
            accounts.append(P.sf_record("Account", a.sf_id, {
                "Name": a.sf_name, "Type": "Customer - Direct", "Industry": SF_INDUSTRY[a.industry],
                "AnnualRevenue": float(a.revenue), "NumberOfEmployees": a.employees,
                self.lex.sf["service plan"]: a.plan, self.lex.sf["renewal date"]: a.renewal,
                "BillingCity": a.city, "BillingCountry": "Germany" if "GmbH" in a.sf_name else "United States",
                "Website": f"www.{a.domain}", "Description": desc,
                "CreatedDate": "2021-03-04T10:00:00.000+0000",
                "LastModifiedDate": ts_sf(t), "SystemModstamp": ts_sf(t)}))
            for attr, vt, val, written in (
                    ("annual revenue", "money", f"{a.revenue} USD", str(float(a.revenue))),
                    ("employees", "number", str(a.employees), str(a.employees)),
                    ("industry", "enum", a.industry, SF_INDUSTRY[a.industry]),
                    ("service plan", "enum", a.plan, a.plan),
                    ("renewal date", "date", a.renewal, a.renewal)):
                T.fact(a.page, attr, vt, val, written, "structured", k)
        self.files["salesforce/accounts.json"] = P.sf_query(accounts)

        contacts = []
        self.contacts = []
        for i, a in enumerate(self.accounts):
            name = self.people[i]
            first, last = name.split(" ", 1)
            cid = f"0037Q00000Ct{i:02d}XQAR"
            title = r.choice(TITLES)
            t = self.when(r.uniform(15, 60))
            email = f"{first.lower()}.{last.lower()}@{a.domain}"
            page = T.entity(_pg("contact", name), "contact", name)
            self.contacts.append({"name": name, "id": cid, "title": title, "t": t, "email": email,
                                  "account": a, "page": page, "first": first, "last": last})
            contacts.append(P.sf_record("Contact", cid, {
                "FirstName": first, "LastName": last, "Name": name, "Title": title,
                "Email": email, "Phone": f"+1 555 01{i:02d}", "AccountId": a.sf_id,
                "Account": P.sf_ref("Account", a.sf_id, a.sf_name),
                "CreatedDate": "2022-05-01T08:00:00.000+0000",
                "LastModifiedDate": ts_sf(t), "SystemModstamp": ts_sf(t)}))
            k = key("salesforce", SF_INST, "Contact", cid)
            T.fact(page, "email", "text", email, email, "structured", k)
            T.fact(page, "account", "reference", a.page, a.sf_name, "structured", k)
            if i >= 2:  # the first two are recency conflicts (see hubspot())
                T.fact(page, "job title", "text", title, title, "structured", k)
        self.files["salesforce/contacts.json"] = P.sf_query(contacts)

        products = []
        for p in self.products:
            t = self.when(r.uniform(40, 75))
            k = key("salesforce", SF_INST, "Product2", p.sf_id)
            products.append(P.sf_record("Product2", p.sf_id, {
                "Name": p.name, "ProductCode": p.code, "Family": "Medical Devices",
                "IsActive": True, self.lex.sf["device class"]: DEVICE_CLASSES[p.dclass],
                self.lex.sf["warranty period"]: float(p.warranty),
                "Description": f"{p.name}, manufactured by Corvane Medical.",
                "CreatedDate": "2023-01-10T09:00:00.000+0000",
                "LastModifiedDate": ts_sf(t), "SystemModstamp": ts_sf(t)}))
            T.fact(p.page, "product code", "text", p.code, p.code, "structured", k)
            T.fact(p.page, "device class", "enum", p.dclass, DEVICE_CLASSES[p.dclass], "structured", k)
            T.fact(p.page, "warranty period", "duration", dur(p.warranty, "months"),
                   str(float(p.warranty)), "structured", k)
        self.files["salesforce/products.json"] = P.sf_query(products)

        opps = []
        self.deals = []
        for i in range(6):
            a = self.accounts[i]
            p = self.products[i % len(self.products)]
            oid = f"0067Q00000Op{i:02d}ZAA1"
            kind = r.choice(["Expansion", "Renewal", "Fleet Upgrade", "Pilot"])
            name = f"{a.hs_name} - {p.name.split()[0]} {kind}"
            stage = r.choice(list(STAGES))
            amount = r.randrange(4, 160) * 5000
            close = (datetime(2026, 12, 1) + timedelta(days=r.randrange(0, 200))).date().isoformat()
            t = self.when(r.uniform(5, 40))
            page = T.entity(_pg("opportunity", name), "opportunity", name)
            self.deals.append({"name": name, "id": oid, "stage": stage, "amount": amount,
                               "close": close, "page": page, "t": t, "account": a, "product": p})
            opps.append(P.sf_record("Opportunity", oid, {
                "Name": name, "StageName": STAGES[stage][0], "Amount": float(amount),
                "CloseDate": close, "Probability": 50.0, "Type": "Existing Customer - Upgrade",
                "AccountId": a.sf_id, "Account": P.sf_ref("Account", a.sf_id, a.sf_name),
                self.lex.sf["product"]: p.sf_id,
                self.lex.sf_product_rel: P.sf_ref("Product2", p.sf_id, p.name),
                "Description": None, "CreatedDate": "2026-06-01T09:00:00.000+0000",
                "LastModifiedDate": ts_sf(t), "SystemModstamp": ts_sf(t)}))
            k = key("salesforce", SF_INST, "Opportunity", oid)
            T.fact(page, "amount", "money", f"{amount} USD", str(float(amount)), "structured", k)
            T.fact(page, "close date", "date", close, close, "structured", k)
            T.fact(page, "stage", "enum", stage, STAGES[stage][0], "structured", k)
            T.fact(page, "account", "reference", a.page, a.sf_name, "structured", k)
            T.fact(page, "product", "reference", p.page, p.name, "structured", k)
        self.files["salesforce/opportunities.json"] = P.sf_query(opps)

    def hubspot(self) -> None:
        r, T = self.rng, self.truth
        a1, a2, a3, a4 = self.accounts[3], self.accounts[4], self.accounts[5], self.accounts[6]
        companies = []
        for a in self.accounts:
            t = self.when(r.uniform(3, 50))
            k = key("hubspot", HS_INST, "company", a.hs_id)
            emp, rev, ind, plan = a.employees, a.revenue, a.industry, a.plan
            sf = key("salesforce", SF_INST, "Account", a.sf_id)
            if a is a1:
                emp = a.employees + r.randrange(150, 900)
                self._authority(a.page, "employees", "number", str(a.employees), [sf],
                                [(str(emp), k)], "Salesforce (crm-production 80) over HubSpot (marketing-crm 50)")
            if a is a2:
                rev = a.revenue + r.randrange(2, 40) * 1_000_000
                self._authority(a.page, "annual revenue", "money", f"{a.revenue} USD", [sf],
                                [(f"{rev} USD", k)], "Salesforce over HubSpot")
            if a is a3:
                ind = next(x for x in HS_INDUSTRY if x != a.industry)
                self._authority(a.page, "industry", "enum", a.industry, [sf], [(ind, k)],
                                "Salesforce over HubSpot; the codes of the others mean the same as Salesforce's labels")
            if a is a4:
                plan = next(x for x in PLANS if x != a.plan)
                self._authority(a.page, "service plan", "enum", a.plan, [sf], [(plan.lower(), k)],
                                "Salesforce over HubSpot")
            companies.append(P.hubspot_object(a.hs_id, {
                "name": a.hs_name, "domain": a.domain, "industry": HS_INDUSTRY[ind],
                "annualrevenue": str(rev), "numberofemployees": str(emp),
                self.lex.hs["service plan"]: plan.lower(),
                self.lex.hs["renewal date"]: f"{a.renewal}T00:00:00.000Z", "city": a.city,
                "description": f"{a.hs_name} is a Corvane customer in {a.city}.",
                "hs_lastmodifieddate": ts_hs(t)}, "2024-02-01T08:00:00.000Z", ts_hs(t)))
            for attr, vt, val, written in (
                    ("annual revenue", "money", f"{rev} USD", str(rev)),
                    ("employees", "number", str(emp), str(emp)),
                    ("industry", "enum", ind, HS_INDUSTRY[ind]),
                    ("service plan", "enum", plan, plan.lower()),
                    ("renewal date", "date", a.renewal, f"{a.renewal}T00:00:00.000Z")):
                T.fact(a.page, attr, vt, val, written, "structured", k)
        self.files["hubspot/companies.json"] = P.hubspot_list(companies)

        contacts = []
        for i, c in enumerate(self.contacts[:5]):
            hid = str(7300 + i)
            k = key("hubspot", HS_INST, "contact", hid)
            sf = key("salesforce", SF_INST, "Contact", c["id"])
            title = c["title"]
            if i == 0:  # HubSpot is newer: it wins
                t = c["t"] + timedelta(days=r.randrange(3, 20), minutes=r.randrange(1, 600))
                title = next(x for x in TITLES if x != c["title"])
                self._recency(c["page"], "job title", "text", (title, k, t),
                              [(c["title"], sf, c["t"])], "contacts-crm (70, tiebreak recency): HubSpot updatedAt after Salesforce LastModifiedDate")
                T.fact(c["page"], "job title", "text", c["title"], c["title"], "structured", sf)
            elif i == 1:  # Salesforce is newer: it wins
                t = c["t"] - timedelta(days=r.randrange(3, 20), minutes=r.randrange(1, 600))
                title = next(x for x in reversed(TITLES) if x != c["title"])
                self._recency(c["page"], "job title", "text", (c["title"], sf, c["t"]),
                              [(title, k, t)], "contacts-crm (70, tiebreak recency): Salesforce LastModifiedDate after HubSpot updatedAt")
                T.fact(c["page"], "job title", "text", c["title"], c["title"], "structured", sf)
            else:
                t = self.when(r.uniform(3, 60))
            T.fact(c["page"], "job title", "text", title, title, "structured", k)
            T.fact(c["page"], "email", "text", c["email"], c["email"], "structured", k)
            T.fact(c["page"], "account", "reference", c["account"].page, c["account"].hs_name,
                   "structured", k)
            contacts.append(P.hubspot_object(hid, {
                "firstname": c["first"], "lastname": c["last"], "email": c["email"],
                "jobtitle": title, "company": c["account"].hs_name,
                "lifecyclestage": "customer", "lastmodifieddate": ts_hs(t)},
                "2024-03-01T08:00:00.000Z", ts_hs(t)))
        self.files["hubspot/contacts.json"] = P.hubspot_list(contacts)

        deals = []
        for i, d in enumerate(self.deals[:4]):
            hid = str(9100 + i)
            k = key("hubspot", HS_INST, "deal", hid)
            sf = key("salesforce", SF_INST, "Opportunity", d["id"])
            amount, close = d["amount"], d["close"]
            if i == 0:
                amount = d["amount"] + r.randrange(1, 20) * 5000
                self._authority(d["page"], "amount", "money", f"{d['amount']} USD", [sf],
                                [(f"{amount} USD", k)], "Salesforce over HubSpot")
            if i == 1:
                close = (datetime.fromisoformat(d["close"]) + timedelta(days=r.randrange(10, 60))).date().isoformat()
                self._authority(d["page"], "close date", "date", d["close"], [sf], [(close, k)],
                                "Salesforce over HubSpot")
            t = self.when(r.uniform(2, 30))
            deals.append(P.hubspot_object(hid, {
                "dealname": d["name"], "amount": str(amount),
                "closedate": f"{close}T00:00:00.000Z", "dealstage": STAGES[d["stage"]][1],
                "pipeline": "default", "hs_lastmodifieddate": ts_hs(t)},
                "2026-06-02T08:00:00.000Z", ts_hs(t)))
            T.fact(d["page"], "amount", "money", f"{amount} USD", str(amount), "structured", k)
            T.fact(d["page"], "close date", "date", close, f"{close}T00:00:00.000Z", "structured", k)
            T.fact(d["page"], "stage", "enum", d["stage"], STAGES[d["stage"]][1], "structured", k)
        self.files["hubspot/deals.json"] = P.hubspot_list(deals)
