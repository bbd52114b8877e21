"""Names, pools, timestamp formats and record keys shared by the generator's modules."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from compiler.slug import page_name
from compiler.text import entity_slug_name

TENANT = "corvane"
CONF_INST = "corvane.atlassian.net"
CONF_BASE = "https://corvane.atlassian.net/wiki"
JIRA_INST = "corvane.atlassian.net"
JIRA_BASE = "https://corvane.atlassian.net"
ZD_INST = "corvane.zendesk.com"
ZD_BASE = "https://corvane.zendesk.com"
SF_INST = "corvane-prod"
HS_INST = "corvane-marketing"
MD_INST = "handbook"
PLANS = ("Platinum", "Gold", "Basic")

# (Salesforce name, HubSpot name, Zendesk organization name, domain, industry, hospital?)
ACCOUNT_POOL = [
    ("Nordwind Freight GmbH", "Nordwind Freight", "NORDWIND", "nordwind-freight.example", "Logistics", False),
    ("Polaris Cold Chain AB", "Polaris Cold Chain", "POLARIS-CC", "polaris-coldchain.example", "Logistics", False),
    ("Polaris Pharma Inc.", "Polaris Pharma", "Polaris Pharma", "polarispharma.example", "Pharmaceuticals", False),
    ("Brightwater Regional Hospital", "Brightwater Regional Hospital", "Brightwater RH", "brightwater-rh.example", "Healthcare", True),
    ("Saint Aldhelm University Hospital", "Saint Aldhelm University Hospital", "ALDHELM UH", "aldhelm-uh.example", "Healthcare", True),
    ("Harbourview Clinics Ltd", "Harbourview Clinics", "Harbourview", "harbourview.example", "Healthcare", True),
    ("Kestrel Medical Supply Co.", "Kestrel Medical Supply", "Kestrel Med", "kestrelmed.example", "Medical Devices", False),
    ("Meridian Home Care LLC", "Meridian Home Care", "MERIDIAN-HC", "meridianhomecare.example", "Healthcare", False),
    ("Lindqvist Laboratories AB", "Lindqvist Laboratories", "LINDQVIST", "lindqvist-labs.example", "Pharmaceuticals", False),
    ("Ostara Dialysis Centers", "Ostara Dialysis Centers", "Ostara", "ostara-dialysis.example", "Healthcare", True),
    ("Caldera Veterinary Group", "Caldera Veterinary Group", "CALDERA VET", "caldera-vet.example", "Veterinary", False),
    ("Ridgeline Ambulance Service", "Ridgeline Ambulance Service", "Ridgeline EMS", "ridgeline-ems.example", "Healthcare", False),
]
SF_INDUSTRY = {"Logistics": "Transportation", "Pharmaceuticals": "Pharmaceuticals",
               "Healthcare": "Healthcare", "Medical Devices": "Medical Devices",
               "Veterinary": "Veterinary"}
HS_INDUSTRY = {"Logistics": "LOGISTICS_AND_SUPPLY_CHAIN", "Pharmaceuticals": "PHARMACEUTICALS",
               "Healthcare": "HOSPITAL_HEALTH_CARE", "Medical Devices": "MEDICAL_DEVICES",
               "Veterinary": "VETERINARY"}
PRODUCT_POOL = [
    ("Vela Infusion Pump", "VIP"), ("Lumen Patient Monitor", "LPM"), ("Arden Ventilator", "ARV"),
    ("Sollis Defibrillator", "SDF"), ("Tessa Syringe Driver", "TSD"),
    ("Orbis Pulse Oximeter", "OPO"), ("Kora ECG Cart", "KEC"), ("Mira Suction Unit", "MSU"),
    ("Helio Warming Cabinet", "HWC"),
]
DEVICE_CLASSES = {"Class I": "I", "Class IIa": "IIa", "Class IIb": "IIb", "Class III": "III"}
PEOPLE = ["Amara Osei", "Birgit Halvorsen", "Carlos Mendes", "Dalia Haddad", "Emeka Nwosu",
          "Fiona Gallagher", "Goran Petrovic", "Hana Kobayashi", "Ivan Sokolov", "Julia Brandt",
          "Kwame Asante", "Leonie Fischer", "Mateo Rossi", "Nadia Karimi", "Oskar Lind",
          "Priyanka Rao", "Quentin Marchal", "Rosa Delgado", "Stefan Berg", "Tuva Nilsen"]
TITLES = ["Biomedical Engineering Lead", "Head of Clinical Engineering", "Procurement Manager",
          "Director of Nursing", "Supply Chain Manager", "Chief Medical Officer",
          "Logistics Coordinator", "Purchasing Director", "Quality Manager",
          "Facilities Manager", "Head of Pharmacy Logistics", "Clinical Operations Lead"]
SITES = [("Rotterdam Distribution Hub", "rotterdam"), ("Memphis Distribution Hub", "memphis"),
         ("Singapore Hub", "singapore")]
STAGES = {"Prospecting": ("Prospecting", "appointmentscheduled"),
          "Qualification": ("Qualification", "qualifiedtobuy"),
          "Proposal": ("Proposal/Price Quote", "presentationscheduled"),
          "Negotiation": ("Negotiation/Review", "contractsent"),
          "Closed Won": ("Closed Won", "closedwon")}
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def _pg(etype: str, name: str) -> str:
    return page_name(etype, entity_slug_name(name, etype))


def ts_confluence(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def ts_jira(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}+0000"


def ts_zendesk(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def ts_sf(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.000+0000")


def ts_hs(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def key(system: str, instance: str, rtype: str, rid: str) -> str:
    return f"{TENANT}/{system}/{instance}/{rtype}/{rid}"


def dur(n: int, unit: str) -> str:
    u = unit
    if n == 1:
        u = "business day" if unit == "business days" else unit.rstrip("s")
    return f"{n} {u}"


@dataclass
class Account:
    sf_name: str
    hs_name: str
    zd_name: str
    domain: str
    industry: str
    hospital: bool
    sf_id: str = ""
    hs_id: str = ""
    zd_id: int = 0
    page: str = ""
    revenue: int = 0
    employees: int = 0
    plan: str = "Gold"
    renewal: str = ""
    beds: int = 0
    city: str = ""


@dataclass
class Product:
    name: str
    prefix: str
    sf_id: str = ""
    page: str = ""
    code: str = ""
    dclass: str = ""
    warranty: int = 24
    calibration: int = 6
    battery: int = 8
    price: int = 0
