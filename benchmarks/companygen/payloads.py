"""The five systems' export envelopes, in the shapes the connectors read (see examples/acme and
tests/fixtures): Confluence Cloud REST v1 content lists, Jira REST v2 search pages, Zendesk
incremental ticket exports and organization lists, Salesforce query responses, HubSpot CRM v3
object lists, and markdown with YAML front matter."""

from __future__ import annotations

import hashlib
from typing import Any

import yaml


def confluence_page(base: str, *, pid: str, title: str, space: str, space_name: str,
                    when: str, number: int, author: str, labels: list[str], body: str,
                    groups: list[str] = (), status: str = "current") -> dict[str, Any]:
    webui = f"/spaces/{space}/pages/{pid}/{title.replace(' ', '+')}"
    account = "5f3c9a1e" + hashlib.sha256(author.encode()).hexdigest()[:16]
    person = {"type": "known", "accountId": account, "accountType": "atlassian",
              "publicName": author, "displayName": author}
    return {
        "id": pid, "type": "page", "status": status, "title": title,
        "space": {"id": 7000 + sum(map(ord, space)), "key": space, "name": space_name,
                  "type": "global", "status": "current",
                  "_links": {"webui": f"/spaces/{space}", "self": f"{base}/rest/api/space/{space}"}},
        "history": {"latest": True, "createdBy": person, "createdDate": "2025-02-03T09:00:00.000Z"},
        "version": {"by": person, "when": when, "friendlyWhen": when[:10], "number": number,
                    "minorEdit": False, "message": ""},
        "body": {"storage": {"value": body, "representation": "storage", "embeddedContent": []}},
        "metadata": {"labels": {"results": [
            {"prefix": "global", "name": lab, "id": str(9000 + i), "label": lab}
            for i, lab in enumerate(labels)], "start": 0, "limit": 200, "size": len(labels)}},
        "restrictions": {"read": {"operation": "read", "restrictions": {
            "user": {"results": [], "start": 0, "limit": 200, "size": 0},
            "group": {"results": [{"type": "group", "name": g, "id": f"g-{g}"} for g in groups],
                      "start": 0, "limit": 200, "size": len(groups)}}}},
        "_expandable": {"container": f"/rest/api/space/{space}",
                        "children": f"/rest/api/content/{pid}/child"},
        "_links": {"self": f"{base}/rest/api/content/{pid}", "webui": webui,
                   "tinyui": f"/x/{pid}"},
    }


def confluence_list(base: str, space: str, pages: list[dict[str, Any]]) -> dict[str, Any]:
    return {"results": pages, "start": 0, "limit": 25, "size": len(pages),
            "_links": {"base": base, "context": "/wiki",
                       "self": f"{base}/rest/api/content?spaceKey={space}&type=page&expand="
                       "body.storage,version,space,history,metadata.labels,"
                       "restrictions.read.restrictions.user,restrictions.read.restrictions.group"}}


def jira_person(name: str) -> dict[str, Any]:
    return {"accountId": "5b10" + "".join(f"{ord(c):x}" for c in name)[:20],
            "displayName": name, "active": True, "timeZone": "Europe/Berlin"}


def jira_issue(base: str, *, iid: str, key: str, summary: str, description: str,
               created: str, updated: str, status: str, priority: str, issuetype: str,
               reporter: str, assignee: str, components: list[str], custom: dict[str, Any],
               comments: list[tuple[str, str, str, str]], security: str | None = None,
               labels: list[str] = ()) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "summary": summary, "description": description, "created": created, "updated": updated,
        "issuetype": {"id": "10004", "name": issuetype, "subtask": False},
        "project": {"id": "10400", "key": key.split("-")[0], "name": "Field Service"},
        "status": {"name": status, "id": "3", "statusCategory": {"key": "indeterminate"}},
        "priority": {"name": priority, "id": "2"},
        "components": [{"id": str(11000 + i), "name": c} for i, c in enumerate(components)],
        "labels": list(labels), "reporter": jira_person(reporter),
        "assignee": jira_person(assignee), "resolution": None, "issuelinks": [],
        "security": {"self": f"{base}/rest/api/2/securitylevel/10300", "id": "10300",
                     "description": "Field engineering only", "name": security}
        if security else None,
        "comment": {"comments": [
            {"self": f"{base}/rest/api/2/issue/{iid}/comment/{cid}", "id": cid,
             "author": jira_person(who), "body": body, "updateAuthor": jira_person(who),
             "created": when, "updated": when, "jsdPublic": True}
            for cid, who, when, body in comments],
            "maxResults": len(comments), "total": len(comments), "startAt": 0},
    }
    fields.update(custom)
    return {"expand": "renderedFields,names,schema,operations,editmeta,changelog",
            "id": iid, "self": f"{base}/rest/api/2/issue/{iid}", "key": key, "fields": fields}


def jira_search(issues: list[dict[str, Any]], names: dict[str, str], start: int,
                total: int) -> dict[str, Any]:
    return {"expand": "names,schema", "startAt": start, "maxResults": 50, "total": total,
            "names": names, "issues": issues}


def zendesk_ticket(base: str, *, tid: int, subject: str, description: str, created: str,
                   updated: str, status: str, priority: str, ttype: str, org: int | None,
                   tags: list[str], custom: list[tuple[int, Any]], requester: int) -> dict[str, Any]:
    cf = [{"id": k, "value": v} for k, v in custom]
    return {
        "url": f"{base}/api/v2/tickets/{tid}.json", "id": tid, "external_id": None,
        "via": {"channel": "email", "source": {"from": {}, "to": {}, "rel": None}},
        "created_at": created, "updated_at": updated, "type": ttype, "subject": subject,
        "raw_subject": subject, "description": description, "priority": priority,
        "status": status, "recipient": "service@corvane.example", "requester_id": requester,
        "submitter_id": requester, "assignee_id": 9100000001, "organization_id": org,
        "group_id": 360000501, "collaborator_ids": [], "follower_ids": [], "email_cc_ids": [],
        "forum_topic_id": None, "problem_id": None, "has_incidents": False, "is_public": True,
        "due_at": None, "tags": tags, "custom_fields": cf, "satisfaction_rating": None,
        "sharing_agreement_ids": [], "fields": cf, "followup_ids": [],
        "ticket_form_id": 360000700, "brand_id": 360000800, "allow_channelback": False,
        "allow_attachments": True, "from_messaging_channel": False,
        "generated_timestamp": 0,
    }


def zendesk_organization(base: str, *, oid: int, name: str, domain: str, external_id: str,
                         created: str, updated: str, fields: dict[str, Any],
                         notes: str = "") -> dict[str, Any]:
    return {"url": f"{base}/api/v2/organizations/{oid}.json", "id": oid, "name": name,
            "shared_tickets": False, "shared_comments": False, "external_id": external_id,
            "created_at": created, "updated_at": updated, "domain_names": [domain],
            "details": "", "notes": notes, "group_id": None, "tags": [],
            "organization_fields": fields}


def sf_record(sobject: str, rid: str, fields: dict[str, Any]) -> dict[str, Any]:
    return {"attributes": {"type": sobject, "url": f"/services/data/v59.0/sobjects/{sobject}/{rid}"},
            "Id": rid, **fields}


def sf_ref(sobject: str, rid: str, name: str) -> dict[str, Any]:
    return {"attributes": {"type": sobject, "url": f"/services/data/v59.0/sobjects/{sobject}/{rid}"},
            "Name": name}


def sf_query(records: list[dict[str, Any]]) -> dict[str, Any]:
    return {"totalSize": len(records), "done": True, "records": records}


def hubspot_object(oid: str, props: dict[str, Any], created: str, updated: str) -> dict[str, Any]:
    return {"id": oid, "properties": {**props, "hs_object_id": oid, "createdate": created},
            "createdAt": created, "updatedAt": updated, "archived": False}


def hubspot_list(objects: list[dict[str, Any]]) -> dict[str, Any]:
    return {"results": objects}


def markdown(meta: dict[str, Any], body: str) -> str:
    front = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=200).strip()
    return f"---\n{front}\n---\n\n{body.strip()}\n"
