"""The browser the tests drive: the features Playwright turns off stay off beside ours, and no
window preloads pages nobody sees."""

from __future__ import annotations

from tests.e2e.conftest import Pages


def disabled_features(command_line: list[str]) -> list[list[str]]:
    """Each --disable-features switch's features, in order."""
    prefix = "--disable-features="
    return [arg[len(prefix) :].split(",") for arg in command_line if arg.startswith(prefix)]


def test_the_last_disable_features_keeps_every_one_before_it(pages: Pages) -> None:
    page = pages.open(None)
    page.goto("chrome://version")
    command_line = page.locator("#command_line").inner_text().split()
    switches = disabled_features(command_line)
    assert len(switches) >= 2, command_line  # Playwright's, then ours
    earlier = {feature for switch in switches[:-1] for feature in switch}
    assert earlier <= set(switches[-1]), sorted(earlier - set(switches[-1]))


def test_a_window_holds_only_its_own_page(pages: Pages) -> None:
    pages.open("/")
    pages.open("/", phone=True)
    session = pages.browser.new_browser_cdp_session()
    try:
        targets = session.send("Target.getTargets")["targetInfos"]
    finally:
        session.detach()
    kinds = [target["type"] for target in targets]
    assert "browser_ui" not in kinds, [target["url"] for target in targets]
    assert kinds.count("page") >= 2
