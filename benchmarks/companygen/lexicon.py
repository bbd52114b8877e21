"""The company's own words, varied by seed: custom field API names, property names, custom
field labels and which sentence shapes its writers prefer.

Schema induction (compiler/schema/induce.py) must work on a company whose field names it has
never seen, so the generated company's vocabulary is not fixed: each seed picks its own names
for the same concepts (``Service_Plan__c`` / ``Support_Level__c`` / ``Contract_Tier__c``,
HubSpot ``service_plan`` / ``support_tier`` / ``care_package``, a Jira custom field
``Device Serial`` / ``Unit Serial`` …), chosen independently per system, so two systems
usually name one fact differently. The company's ``schema.yaml`` maps whatever names were
picked (the company knows its own fields) and lists their words as phrases of the attribute.

A separate random stream from the world's (``seed`` salted), so names vary without moving
any value, date or sentence the world draws.
"""

from __future__ import annotations

import random
import re

_SALT = 0x5EED_1E8

# concept → candidate names per system (API names as the system spells them)
SF_FIELDS = {
    "service plan": ["Service_Plan__c", "Support_Level__c", "Contract_Tier__c",
                     "Coverage_Level__c", "Care_Package__c", "Service_Tier__c"],
    "renewal date": ["Contract_Renewal__c", "Renewal_Date__c", "Term_End__c",
                     "Contract_End_Date__c", "Subscription_End__c"],
    "device class": ["Device_Class__c", "Risk_Class__c", "Regulatory_Class__c", "MDR_Class__c"],
    "warranty period": ["Warranty_Months__c", "Warranty_Term__c", "Warranty_Length__c"],
    "product": ["Primary_Product__c", "Main_Product__c", "Lead_Device__c", "Core_Device__c"],
}
HS_PROPS = {
    "service plan": ["service_plan", "support_tier", "care_package", "coverage_level",
                     "contract_level", "sla_plan"],
    "renewal date": ["renewal_date", "contract_end", "term_end_date", "next_renewal",
                     "subscription_end_date"],
}
ZD_LABELS = {"service plan": ["Service plan", "Support level", "Plan", "Coverage tier",
                              "Contract level"]}
ZD_ORG_FIELDS = {"service plan": ["service_plan", "support_tier", "plan_level", "coverage"]}
JIRA_LABELS = {"device serial": ["Device Serial", "Serial Number", "Unit Serial", "Device S/N"]}


def _words(api_name: str) -> str:
    base = re.sub(r"__(c|r)$", "", api_name)
    base = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", base)
    return " ".join(w for w in re.split(r"[\s_/]+", base.lower()) if w)


class Lexicon:
    def __init__(self, seed: int) -> None:
        r = random.Random(seed ^ _SALT)
        self.sf = {k: r.choice(v) for k, v in sorted(SF_FIELDS.items())}
        self.hs = {k: r.choice(v) for k, v in sorted(HS_PROPS.items())}
        self.zd = {k: r.choice(v) for k, v in sorted(ZD_LABELS.items())}
        self.zd_org = {k: r.choice(v) for k, v in sorted(ZD_ORG_FIELDS.items())}
        self.jira = {k: r.choice(v) for k, v in sorted(JIRA_LABELS.items())}
        self._rng = r

    @property
    def sf_product_rel(self) -> str:
        """The relationship name beside a lookup field (``Primary_Product__c`` →
        ``Primary_Product__r``)."""
        return self.sf["product"][:-3] + "__r"

    def phrases(self, concept: str) -> list[str]:
        """The words of every name this company uses for ``concept`` (schema phrases)."""
        names = [d[concept] for d in (self.sf, self.hs, self.zd, self.zd_org, self.jira)
                 if concept in d]
        return sorted({_words(n) for n in names} - {concept, ""})

    def shapes(self, family: list[str], keep: int = 3) -> list[str]:
        """The sentence shapes of one family this company's writers use (at least ``keep``,
        order kept), picked by seed."""
        if len(family) <= keep:
            return list(family)
        picked = sorted(self._rng.sample(range(len(family)), keep))
        return [family[i] for i in picked]
