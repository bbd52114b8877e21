"""The corpus's own configuration: sources.yaml, authority.yaml, directory.yaml, schema.yaml."""

from __future__ import annotations

import copy
from typing import Any

from .lexicon import Lexicon
from .common import CONF_BASE, CONF_INST, HS_INST, JIRA_BASE, JIRA_INST, MD_INST, SF_INST, TENANT, ZD_BASE, ZD_INST

SOURCES: dict[str, Any] = {
    "tenant": TENANT,
    "sources": [
        {"path": "confluence", "system": "confluence", "instance": CONF_INST,
         "default_acl": {"groups": ["staff"]},
         "options": {"base_url": CONF_BASE,
                     "entity_labels": {"policy": "policy", "product": "product"}}},
        {"path": "jira", "system": "jira", "instance": JIRA_INST,
         "default_acl": {"groups": ["staff"]},
         "options": {"base_url": JIRA_BASE,
                     "security_groups": {"Field Engineering Only": ["field-eng"]},
                     "reference_fields": {"Hospital": "account"}}},
        {"path": "zendesk", "system": "zendesk", "instance": ZD_INST,
         "default_acl": {"groups": ["staff"]},
         "options": {"base_url": ZD_BASE, "custom_field_names": {"360010001": "Service plan"}}},  # relabelled per seed: sources()
        {"path": "salesforce", "system": "salesforce", "instance": SF_INST,
         "default_acl": {"groups": ["staff"]},
         "options": {"instance_url": "https://corvane.my.salesforce.com"}},
        {"path": "hubspot", "system": "hubspot", "instance": HS_INST,
         "default_acl": {"groups": ["staff"]},
         "options": {"portal_id": "4411902", "reference_properties": {"company": "account"}}},
        {"path": "handbook", "system": "markdown", "instance": MD_INST,
         "default_acl": {"public": True}},
    ],
}

AUTHORITY_HEADER = """\
# Authority policy of the generated company (benchmarks/companygen).
# The first rule uses a label exclusion (`labels_not`: approved AND NOT draft; issue 20
# item 4, the syntax of the schema-layer work). benchmarks/quality_bench.py drops the key,
# and says so, for a compiler that predates it: the draft then ranks as approved.
"""

AUTHORITY: dict[str, Any] = {
    "version": 1,
    "default": {"name": "unranked", "rank": 10},
    "rules": [
        {"name": "approved-policy", "rank": 100,
         "description": "Approved, non-draft pages of the Operations space are binding.",
         "match": {"system": "confluence", "container": "OPS", "labels": ["approved"],
                   "labels_not": ["draft"], "status": "current"}},
        {"name": "contacts-crm", "rank": 70, "tiebreak": "recency",
         "description": "People change jobs: the most recent CRM edit of a contact wins.",
         "match": {"system": ["salesforce", "hubspot"], "entity_type": "contact"}},
        {"name": "crm-production", "rank": 80,
         "description": "Salesforce is the system of record for accounts, deals and products.",
         "match": {"system": "salesforce"}},
        {"name": "product-specs", "rank": 70,
         "description": "Product documentation; pages disagreeing are for a human to settle.",
         "match": {"system": "confluence", "container": "PROD"}},
        {"name": "engineering-notes", "rank": 65, "tiebreak": "recency",
         "description": "Engineering bulletins supersede each other: the latest version wins.",
         "match": {"system": "confluence", "container": "ENG"}},
        {"name": "confluence-other", "rank": 60, "match": {"system": "confluence"}},
        {"name": "marketing-crm", "rank": 50, "match": {"system": "hubspot"}},
        {"name": "handbook", "rank": 45, "tiebreak": "recency", "match": {"system": "markdown"}},
        {"name": "field-service", "rank": 30, "tiebreak": "recency",
         "description": "Field engineers' ticket comments; the latest comment wins.",
         "match": {"system": "jira"}},
        {"name": "help-desk", "rank": 20, "match": {"system": "zendesk"}},
    ],
    "freshness": {"tiers": [{"name": "tickets", "max_age_days": 60,
                             "match": {"system": ["jira", "zendesk"]}}],
                  "default": {"name": "default", "max_age_days": 365}},
}

DIRECTORY: dict[str, Any] = {"users": {
    "ines": {"groups": ["staff", "finance"]},
    "omar": {"groups": ["staff", "field-eng"]},
    "sven": {"groups": ["staff", "sales"]},
    "kim": {"groups": ["staff"]},
    "lee": {"groups": ["contractors"]},
}}

_PLAN = {"Platinum": ["platinum", "platinum plan", "plat"], "Gold": ["gold", "gold plan"],
         "Basic": ["basic", "basic plan", "essentials"]}

SCHEMA: dict[str, Any] = {
    "version": "2026.11-corvane",
    "qualifiers": {"service plan": {"description": "the customer's service contract level",
                                    "values": _PLAN}},
    "types": {
        "account": {"attributes": {
            "annual revenue": {"type": "money", "currency": "USD", "phrases": ["yearly revenue", "revenue", "turnover"]},
            "employees": {"type": "number", "phrases": ["number of employees", "headcount", "staff"]},
            "industry": {"type": "enum", "values": {
                "Healthcare": ["HOSPITAL_HEALTH_CARE", "Hospital & Health Care", "health care"],
                "Logistics": ["LOGISTICS_AND_SUPPLY_CHAIN", "Transportation", "logistics and supply chain"],
                "Pharmaceuticals": ["PHARMACEUTICALS", "pharma"],
                "Medical Devices": ["MEDICAL_DEVICES"],
                "Veterinary": ["VETERINARY"]}},
            "service plan": {"type": "enum", "values": _PLAN, "phrases": ["service contract", "plan"]},
            "renewal date": {"type": "date", "phrases": ["contract renewal", "renews on", "up for renewal", "renewal"]},
            "bed count": {"type": "number", "phrases": ["beds", "bed", "number of beds"]},
            "account manager": {"type": "text", "phrases": ["manages", "manages the account", "looked after by"]},
            "payment terms": {"type": "duration", "unit": "days", "phrases": ["terms of payment"]},
            "credit limit": {"type": "money", "currency": "USD", "phrases": ["credit line"]},
        }},
        "contact": {"attributes": {
            "job title": {"type": "text", "phrases": ["title", "position", "role"]},
            "email": {"type": "text", "phrases": ["e-mail", "email address"]},
            "account": {"type": "reference", "target": "account", "phrases": ["company", "employer"]},
        }},
        "opportunity": {"attributes": {
            "amount": {"type": "money", "currency": "USD", "phrases": ["deal value", "value"]},
            "close date": {"type": "date", "phrases": ["expected close"]},
            "stage": {"type": "enum", "values": {
                "Prospecting": ["appointmentscheduled"], "Qualification": ["qualifiedtobuy"],
                "Proposal": ["presentationscheduled", "Proposal/Price Quote"],
                "Negotiation": ["contractsent", "Negotiation/Review"],
                "Closed Won": ["closedwon"], "Closed Lost": ["closedlost"]}},
            "account": {"type": "reference", "target": "account"},
            "product": {"type": "reference", "target": "product", "phrases": ["primary product"]},
        }},
        "product": {"attributes": {
            "product code": {"type": "text", "phrases": ["code", "sku"]},
            "device class": {"type": "enum", "values": {
                "Class I": ["I"], "Class IIa": ["IIa"], "Class IIb": ["IIb"], "Class III": ["III"]}},
            "warranty period": {"type": "duration", "unit": "months", "phrases": ["warranty", "warranty coverage"]},
            "calibration interval": {"type": "duration", "unit": "months", "phrases": [
                "calibration", "calibrate", "recalibrated every", "calibration check", "requires calibration every"]},
            "battery runtime": {"type": "duration", "unit": "hours", "phrases": [
                "battery life", "runtime on battery", "on battery", "battery operation", "on a full charge"]},
            "list price": {"type": "money", "currency": "USD", "phrases": [
                "price", "price per unit", "unit list price", "lists at", "priced at", "costs"]},
            "current firmware": {"type": "text", "phrases": ["firmware", "firmware version", "current release"]},
        }},
        "policy": {"attributes": {
            "rma window": {"type": "duration", "unit": "days", "qualifiers": ["service plan"],
                           "home": "Device Returns Policy", "phrases": [
                               "return window", "return authorisation period", "return a device",
                               "returns", "sent back", "send devices back", "return authorisation"]},
            "restocking fee": {"type": "percent", "home": "Device Returns Policy"},
            "on-site response time": {"type": "duration", "unit": "hours", "qualifiers": ["service plan"],
                                      "home": "Field Service Policy", "phrases": [
                                          "on-site response", "engineer on site", "engineer arrival time",
                                          "response on site", "technician", "field engineer is on site"]},
            "loaner turnaround": {"type": "duration", "unit": "days", "qualifiers": ["service plan"],
                                  "home": "Field Service Policy", "phrases": [
                                      "loaner delivery", "loaner delivery time", "loaner device",
                                      "replacement unit", "loaner"]},
        }},
        "site": {"attributes": {
            "pallet capacity": {"type": "number", "phrases": ["pallets", "pallet positions", "room for"]},
            "dispatch cutoff": {"type": "text", "phrases": [
                "same-day dispatch cut-off", "dispatch cut-off", "cut-off for same-day shipping", "ship the same day",
                "dispatches same day"]},
            "dock hours": {"type": "text", "phrases": ["receiving hours", "loading dock", "deliveries to", "deliveries are accepted",
                                                "receives deliveries"]},
        }},
        "ticket": {"attributes": {"device serial": {"type": "text", "phrases": ["serial number"]}}},
    },
    "mappings": [
        {"system": "salesforce", "record_type": "Account", "entity_type": "account", "fields": {
            "AnnualRevenue": "annual revenue", "NumberOfEmployees": "employees",
            "Industry": {"attribute": "industry", "values": {"Transportation": "Logistics"}},
            "Service_Plan__c": "service plan", "Contract_Renewal__c": "renewal date"}},
        {"system": "salesforce", "record_type": "Contact", "entity_type": "contact", "fields": {
            "Title": "job title", "Email": "email", "Account": "account"}},
        {"system": "salesforce", "record_type": "Opportunity", "entity_type": "opportunity", "fields": {
            "Amount": "amount", "CloseDate": "close date", "StageName": "stage",
            "Account": "account", "Primary_Product__c": "product"}},
        {"system": "salesforce", "record_type": "Product2", "entity_type": "product", "fields": {
            "ProductCode": "product code",
            "Device_Class__c": {"attribute": "device class", "values": {
                "I": "Class I", "IIa": "Class IIa", "IIb": "Class IIb", "III": "Class III"}},
            "Warranty_Months__c": "warranty period"}},
        {"system": "hubspot", "record_type": "companies", "entity_type": "account", "fields": {
            "annualrevenue": "annual revenue", "numberofemployees": "employees",
            "industry": "industry", "service_plan": "service plan"}},
        {"system": "hubspot", "record_type": "contacts", "entity_type": "contact", "fields": {
            "jobtitle": "job title", "email": "email", "company": "account"}},
        {"system": "hubspot", "record_type": "deals", "entity_type": "opportunity", "fields": {
            "amount": "amount", "closedate": "close date", "dealstage": "stage"}},
        {"system": "jira", "record_type": "issue", "entity_type": "ticket", "fields": {
            "Device Serial": "device serial"}},
    ],
}


def sources(lex: Lexicon) -> dict[str, Any]:
    """sources.yaml with this seed's Zendesk custom field label."""
    out = copy.deepcopy(SOURCES)
    for src in out["sources"]:
        if src["system"] == "zendesk":
            src["options"]["custom_field_names"] = {"360010001": lex.zd["service plan"]}
    return out


def schema(lex: Lexicon) -> dict[str, Any]:
    """schema.yaml mapping this seed's field names (the company knows its own fields), with
    their words among the attribute's phrases."""
    out = copy.deepcopy(SCHEMA)
    sf = lex.sf
    renames = {"Service_Plan__c": sf["service plan"], "Contract_Renewal__c": sf["renewal date"],
               "Device_Class__c": sf["device class"], "Warranty_Months__c": sf["warranty period"],
               "Primary_Product__c": sf["product"], "service_plan": lex.hs["service plan"],
               "Device Serial": lex.jira["device serial"]}
    for m in out["mappings"]:
        m["fields"] = {renames.get(f, f): t for f, t in m["fields"].items()}
        if m["system"] == "hubspot" and m["record_type"] == "companies":
            m["fields"][lex.hs["renewal date"]] = "renewal date"
    out["mappings"].append({"system": "zendesk", "record_type": "organization",
                            "entity_type": "account",
                            "fields": {lex.zd_org["service plan"]: "service plan"}})
    for tname, t in out["types"].items():
        for aname, a in t["attributes"].items():
            extra = [w for w in lex.phrases(aname) if w not in a.get("phrases", [])]
            if extra:
                a["phrases"] = [*a.get("phrases", []), *extra]
    return out
