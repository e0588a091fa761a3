"""``hookproof tenant list``: every tenant with its active token ids, never a token."""

from __future__ import annotations

import json

from ..daemon import run_cli


def test_tenant_list_names_tenants_and_token_ids_only(db_url_sync: str) -> None:
    env = {"HOOKPROOF_DATABASE_URL": db_url_sync}
    empty = run_cli(["tenant", "list"], env)
    assert empty.returncode == 0 and "no tenants yet" in empty.stdout
    made = []
    for name in ("acme", "globex"):
        done = run_cli(["tenant", "create", name, "--json"], env)
        assert done.returncode == 0, done.stderr
        made.append(json.loads(done.stdout))
    revoked = made[1]["token"].split("_")[1]  # hp_<token id>_<secret>
    assert run_cli(["tenant", "revoke-token", revoked], env).returncode == 0
    listed = run_cli(["tenant", "list", "--json"], env)
    assert listed.returncode == 0, listed.stderr
    items = json.loads(listed.stdout)["items"]
    assert [(t["tenantId"], t["name"]) for t in items] == [
        (m["tenantId"], n) for m, n in zip(made, ("acme", "globex"), strict=True)
    ]
    assert items[0]["activeTokens"] == [made[0]["token"].split("_")[1]]
    assert items[1]["activeTokens"] == [] and items[0]["subscriptions"] == 0
    text = run_cli(["tenant", "list"], env).stdout
    for m in made:
        assert m["tenantId"] in text and m["token"] not in text + listed.stdout
