"""Confluence storage format: what the page shows in place of macros and mentions is kept as
text (status lozenges, Jira issue keys, @mentions, task list items with their status)."""

from __future__ import annotations

from connectors.xhtml import storage_to_text

ELENA = "712020:8c1f6a2e-5b3d-4e7a-9f10-2a6b3c4d5e05"


def _status(title: str, colour: str = "Green") -> str:
    return (f'<ac:structured-macro ac:name="status" ac:schema-version="1">'
            f'<ac:parameter ac:name="colour">{colour}</ac:parameter>'
            f'<ac:parameter ac:name="title">{title}</ac:parameter></ac:structured-macro>')


def test_status_lozenge_title_is_kept_in_its_table_cell() -> None:
    """The kestrel Q4 review's Decisions table: the Status column was empty."""
    storage = ("<table><tbody><tr><th><p><strong>Decision</strong></p></th><th><p>Status</p></th>"
               "<th><p>Owner</p></th></tr>"
               f"<tr><td><p>Canvas integration is deferred</p></td><td><p>{_status('AGREED')}</p></td>"
               "<td><p>Elena Vasquez</p></td></tr>"
               f"<tr><td><p>Extended time</p></td><td><p>{_status('IN PROGRESS', 'Yellow')}</p></td>"
               "<td><p>Tobias Reinholt</p></td></tr></tbody></table>")
    assert storage_to_text(storage).text == (
        "Decision: Canvas integration is deferred; Status: AGREED; Owner: Elena Vasquez.\n"
        "Decision: Extended time; Status: IN PROGRESS; Owner: Tobias Reinholt.")


def test_inline_macros_stay_in_their_sentence() -> None:
    """A lozenge or a Jira issue macro inside a paragraph is a word of it, not a line of its
    own; the colour and the Jira server's name are configuration, not text."""
    jira = ('<ac:structured-macro ac:name="jira" ac:schema-version="1">'
            '<ac:parameter ac:name="server">System JIRA</ac:parameter>'
            '<ac:parameter ac:name="key">CLS-412</ac:parameter></ac:structured-macro>')
    text = storage_to_text(f"<p>Rollout is {_status('BLOCKED', 'Red')} by {jira}.</p>").text
    assert text == "Rollout is BLOCKED by CLS-412."
    # touching words stay apart; an untitled lozenge adds nothing
    assert storage_to_text(f"<p>({_status('A')}{_status('B')}){_status('')}done</p>").text == "(A B)done"


def test_user_mention_by_name_else_by_id() -> None:
    """An action item's owner is an @mention: it vanished, leaving "draft the requirements"."""
    body = f'<p><ac:link><ri:user ri:account-id="{ELENA}" /></ac:link> drafts the requirements</p>'
    assert storage_to_text(body, {ELENA: "Elena Vasquez"}).text == "Elena Vasquez drafts the requirements"
    # no name known: the id, so the fact that someone was named survives
    assert storage_to_text(body).text == f"@{ELENA} drafts the requirements"
    # Server / Data Center mentions name the user by key or username
    assert storage_to_text('<p><ac:link><ri:user ri:userkey="ff808081" /></ac:link> owns it</p>',
                           {"ff808081": "Jo Park"}).text == "Jo Park owns it"
    assert storage_to_text('<p><ac:link><ri:user ri:username="jpark" /></ac:link> owns it</p>'
                           ).text == "@jpark owns it"
    # the link's own body is what the page shows, whatever the user map says
    linked = (f'<p>Ask <ac:link><ri:user ri:account-id="{ELENA}" /><ac:plain-text-link-body>'
              '<![CDATA[Elena V.]]></ac:plain-text-link-body></ac:link>.</p>')
    assert storage_to_text(linked, {ELENA: "Elena Vasquez"}).text == "Ask Elena V.."


def test_task_list_items_keep_marker_and_status() -> None:
    storage = (
        "<h2>Action items</h2><ac:task-list>"
        f'<ac:task><ac:task-id>1</ac:task-id><ac:task-status>incomplete</ac:task-status><ac:task-body>'
        f'<ac:link><ri:user ri:account-id="{ELENA}" /></ac:link> draft the Canvas requirements by '
        '<time datetime="2026-12-15" /></ac:task-body></ac:task>'
        "<ac:task><ac:task-id>2</ac:task-id><ac:task-status>complete</ac:task-status>"
        "<ac:task-body>tell the districts</ac:task-body></ac:task>"
        "</ac:task-list><p>After the list.</p>")
    assert storage_to_text(storage, {ELENA: "Elena Vasquez"}).text == (
        "## Action items\n"
        "- [ ] Elena Vasquez draft the Canvas requirements by 2026-12-15\n"
        "- [x] tell the districts\n"
        "After the list.")


def test_task_in_a_table_cell_and_nested_task_lists() -> None:
    cell = ("<table><tr><td>Next</td><td><ac:task-list><ac:task><ac:task-status>complete"
            "</ac:task-status><ac:task-body>ship it</ac:task-body></ac:task></ac:task-list></td></tr></table>")
    assert storage_to_text(cell).text == "Next: [x] ship it"
    nested = ("<ac:task-list><ac:task><ac:task-status>complete</ac:task-status><ac:task-body>parent"
              "<ac:task-list><ac:task><ac:task-status>incomplete</ac:task-status><ac:task-body>child"
              "</ac:task-body></ac:task></ac:task-list></ac:task-body></ac:task>"
              "<ac:task><ac:task-status>incomplete</ac:task-status><ac:task-body>sibling</ac:task-body>"
              "</ac:task></ac:task-list>")
    assert storage_to_text(nested).text == "- [x] parent\n- [ ] child\n- [ ] sibling"
