"""The interface in French and in English: the browser's language chooses, every page then speaks
it with no English left, the switch changes it on the spot and is remembered; each page pictured
in French, in the light and the dark theme."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.api.test_words import PARAM, table
from tests.e2e.conftest import DESKTOP, PHONE, ROOM_URL, Pages, scroll_width
from tests.e2e.matches import in_thread, play_matches
from tests.e2e.test_access import resize
from tests.e2e.ui import controlled, expect, wait_for
from tests.rooms.client import api, join_room

Shot = Callable[[Any, str], None]
APOSTROPHE = "\N{RIGHT SINGLE QUOTATION MARK}"  # French text writes its apostrophes so


def english_words() -> list[str]:
    """The English table's words that French says otherwise: each piece of a text between its
    parameters, longer than a few letters."""
    english, french = table("en"), table("fr")
    words = set()
    for key, text in english.items():
        if text == french[key]:
            continue
        for form in text.split("|"):
            for piece in PARAM.split(form)[::2]:
                piece = piece.strip(" .,:;!?()·…")
                if len(piece) >= 6 and piece not in french[key]:
                    words.add(piece)
    return sorted(words, key=len, reverse=True)


ENGLISH = english_words()


@pytest.fixture
def pages(own_pages: Pages) -> Pages:
    """Pages against a server of this module's own: its history holds only the names these
    tests give."""
    return own_pages


def visible_text(page: Any) -> str:
    """What the page shows in words, less what is marked as English (the rules' own text, which
    has no French version, and the switch to English)."""
    text: str = page.evaluate(
        """() => {
          const english = [...document.querySelectorAll('[lang=en]')];
          english.forEach((node) => (node.style.display = 'none'));
          const text = document.body.innerText;
          english.forEach((node) => (node.style.display = ''));
          return text;
        }"""
    )
    return text


def in_french(page: Any, shot: Shot, name: str) -> None:
    """The page is in French with no English word of the tables left, its longer words still fit
    a phone's width; pictured in both themes."""
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    text = visible_text(page)
    left = [word for word in ENGLISH if re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text)]
    assert left == [], f"English on the {name} page: {left}"
    resize(page, PHONE)
    # Right after a resize the page may still be laying out: only a width that stays is wrong.
    fits = page.evaluate(
        """() => new Promise((done) => {
          const start = performance.now();
          const look = () => document.documentElement.scrollWidth <= innerWidth
            ? done(true) : performance.now() - start > 3000 ? done(false) : setTimeout(look, 50);
          look();
        })"""
    )
    wide = page.evaluate(
        "[...document.querySelectorAll('body *')]"
        ".filter((e) => e.getBoundingClientRect().right > innerWidth + 1)"
        ".map((e) => `${e.tagName}.${e.className}: ${e.textContent.slice(0, 40)}`)"
    )
    assert fits, f"the {name} page scrolls sideways ({scroll_width(page)} px): {wide}"
    resize(page, DESKTOP)
    shot(page, f"fr-{name}")
    page.click("#theme")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    shot(page, f"fr-{name}-dark")
    page.click("#theme")
    expect(page.locator("html")).to_have_attribute("data-theme", "light")


def play_to_the_end(page: Any) -> None:
    """Knock at the first chance (or, after the bot's knock, take and discard) until the
    match's standings show, whatever the language."""
    for _ in range(4):
        expect(page.locator(".status.mine, .standings").first).to_be_visible()
        if page.locator(".standings").count():
            return
        if page.locator("[data-act=knock]").count():
            page.click("[data-act=knock]")
            page.click("[data-act=knock-yes]")
        else:
            page.click('.pile[data-pile="0"]')
            page.locator(".hand .card.can").first.click()
        expect(page.locator(".status.mine")).to_have_count(0)
    expect(page.locator(".standings")).to_be_visible()


def test_a_french_browser_gets_every_page_in_french(pages: Pages, shot: Shot) -> None:
    page = pages.open("/", locale="fr-FR")
    expect(page.locator("h2").first).to_have_text("Nouvelle salle")
    expect(page.locator("#lang")).to_have_text("English")
    expect(page.locator("nav a").first).to_have_text("Jouer")
    in_french(page, shot, "home")
    page.locator("[data-submit=create] button").click()
    alert = page.locator("[data-submit=create] [role=alert]")
    expect(alert).to_have_text(f"Saisissez d{APOSTROPHE}abord votre nom.")

    page.fill("#name", "Zoé")
    page.locator("[data-submit=create] summary").click()
    page.fill("#set-rounds", "1")
    page.locator("[data-submit=create] button.primary").click()
    expect(page.locator(".code")).to_be_visible()
    page.click("[data-act=add-bot][data-level=easy]")
    expect(page.locator(".seatlist .badge", has_text="ordinateur")).to_have_count(1)
    expect(page.locator(".chat h2")).to_have_text("Discussion")
    expect(page.locator("#chat-text")).to_have_attribute("placeholder", "Votre message…")
    expect(page.locator("[data-act=start]")).to_have_text("Lancer la partie")
    in_french(page, shot, "lobby")

    page.click("[data-act=start]")
    expect(page.locator(".status.mine, .standings").first).to_be_visible()
    if page.locator(".status.mine").count():
        expect(page.locator(".status.mine")).to_contain_text("À vous")
        page.click("[data-act=hint]")
        hint = re.compile(r"^Conseil : [A-ZÀ-Ý].* points?\.$")
        expect(page.locator(".hint-line")).to_have_text(hint)
        in_french(page, shot, "table")
        # Offline, the table says so in French; back online, it says that too.
        page.context.set_offline(True)
        expect(page.locator(".banner", has_text="Vous êtes hors ligne.")).to_be_visible()
        in_french(page, shot, "table-offline")
        page.context.set_offline(False)
        expect(page.locator(".banner")).to_have_count(0, timeout=20000)
        expect(page.locator("#toast")).to_contain_text("De retour en ligne")
    play_to_the_end(page)
    expect(page.locator(".celebrate h1")).to_contain_text(re.compile("gagne|Égalité"))
    in_french(page, shot, "finished")

    page.click(".sticky-actions a[href^='/matches/']")
    expect(page.locator(".verdict.good").first).to_have_text(
        "✓ Cette donne était fixée avant le début de la manche."
    )
    expect(page.locator(".replay-what")).to_contain_text("Coup 0 sur")
    page.locator(".replay-steps button").nth(2).click()
    expect(page.locator(".replay-what")).to_contain_text("Coup 1 sur")
    in_french(page, shot, "match")

    for path, name, heading in [
        ("/players/Zo%C3%A9", "player", "Zoé"),
        ("/history", "history", "Historique"),
        ("/calculator?cards=1-circle-red,2-circle-red,3-star-violet", "calculator", "Calculateur"),
    ]:
        page.goto(pages.server.url + path)
        expect(page.locator("h1")).to_contain_text(heading)
        expect(page.locator(".spinner")).to_have_count(0)
        in_french(page, shot, name)
    expect(page.locator(".answer")).to_have_text("Choisissez encore 2 cartes.")

    page.goto(pages.server.url + "/rules")
    expect(page.locator(".prose h3")).to_have_text("Les mains qui marquent, en cartes")
    expect(page.locator(".prose a.btn")).to_have_text("Essayer des mains au calculateur de score")
    in_french(page, shot, "rules")
    # Switched on the page, the hands shown as cards are in the new language as the rest is.
    page.locator("#lang").click()
    expect(page.locator(".prose h3")).to_have_text("The scoring hands, as cards")
    expect(page.locator(".prose .shown .line").first).to_have_text("1 complete · Mono · 2 points")
    page.locator("#lang").click()
    expect(page.locator(".prose h3")).to_have_text("Les mains qui marquent, en cartes")
    page.goto(pages.server.url + "/r/NOPE")
    expect(page.locator("h1")).to_have_text(f"Ce n{APOSTROPHE}est pas un code de salle")
    page.goto(pages.server.url + "/no/such/page")
    expect(page.locator("h1")).to_have_text("Page introuvable")
    in_french(page, shot, "not-found")


def test_an_english_browser_gets_english(pages: Pages) -> None:
    page = pages.open("/", locale="en-US")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("h2").first).to_have_text("New room")
    expect(page.locator("#lang")).to_have_text("Français")
    expect(page.locator("#lang")).to_have_attribute("lang", "fr")
    page = pages.open("/calculator", locale="de-DE")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("h1")).to_have_text("Score calculator")


def test_the_switch_changes_the_language_at_once_and_is_remembered(pages: Pages) -> None:
    page = pages.open("/", locale="fr-FR")
    expect(page.locator("h2").first).to_have_text("Nouvelle salle")
    page.fill("#name", "Léa")
    page.locator("[data-submit=create] button.primary").click()
    expect(page.locator(".panel h2").first).to_contain_text("Joueurs")
    page.click("#lang")
    # The lobby is drawn again in English, its seat kept.
    expect(page.locator(".panel h2").first).to_contain_text("Players")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("nav a").first).to_have_text("Play")
    expect(page.locator(".seatlist")).to_contain_text("Léa")
    expect(page.locator("#theme")).to_have_text("Dark theme")
    assert page.evaluate("localStorage.getItem('spectrum.lang')") == "en"
    page.reload()
    expect(page.locator(".panel h2").first).to_contain_text("Players")
    page.goto(pages.server.url + "/")
    expect(page.locator("h2").first).to_have_text("New room")
    # Back to the browser's own language: nothing left to remember.
    page.click("#lang")
    expect(page.locator("h2").first).to_have_text("Nouvelle salle")
    expect(page.locator("#theme")).to_have_text("Thème sombre")
    assert page.evaluate("localStorage.getItem('spectrum.lang')") is None
    page.reload()
    expect(page.locator("h2").first).to_have_text("Nouvelle salle")


def test_the_switch_on_the_home_page_keeps_what_was_typed_and_ticked(pages: Pages) -> None:
    """The home page drawn again in the other language keeps the name and the room code typed,
    and the new room's settings as they were chosen, still open; back again too."""
    page = pages.open("/", locale="fr-FR")
    page.fill("#name", "Léa")
    page.fill("#code", "k7qm 2xpd")
    page.click("summary")
    page.fill("#set-rounds", "3")
    page.select_option("#set-timer", "30")
    page.check("[name=multi_pickup]")
    page.uncheck("[name=hints]")
    page.select_option("#set-seats", "4")
    expect(page.locator("summary")).to_contain_text("3 manches")
    for heading, summary in [("New room", "3 rounds"), ("Nouvelle salle", "3 manches")]:
        page.click("#lang")
        expect(page.locator("h2").first).to_have_text(heading)
        expect(page.locator("summary")).to_contain_text(summary)
        expect(page.locator("#name")).to_have_value("Léa")
        expect(page.locator("#code")).to_have_value("k7qm 2xpd")
        expect(page.locator("#set-rounds")).to_be_visible()
        expect(page.locator("#set-rounds")).to_have_value("3")
        expect(page.locator("#set-timer")).to_have_value("30")
        expect(page.locator("[name=multi_pickup]")).to_be_checked()
        expect(page.locator("[name=ten_card]")).not_to_be_checked()
        expect(page.locator("[name=hints]")).not_to_be_checked()
        expect(page.locator("#set-seats")).to_have_value("4")
    # Only the page drawn again keeps them: left for another page and opened again, it is new.
    page.click("[data-nav=history]")
    expect(page.locator("h1")).to_be_visible()
    page.go_back()
    expect(page.locator("#code")).to_be_visible()
    expect(page.locator("#code")).to_have_value("")
    expect(page.locator("#set-rounds")).not_to_be_visible()
    expect(page.locator("summary")).not_to_contain_text("3 manches")


KEPT = """() => caches.keys().then((names) => Promise.all(names.map((name) =>
  caches.open(name).then((cache) => cache.keys()).then((requests) =>
    [name, requests.map((r) => new URL(r.url).pathname).filter((p) => p.includes('/lang/'))])))
)"""


def test_after_a_switch_the_offline_copy_changes_language_at_once(pages: Pages) -> None:
    page = pages.open("/", locale="fr-FR", worker=True)
    controlled(page)
    assert page.evaluate("navigator.serviceWorker.controller.scriptURL").endswith("?lang=fr")
    [(french, words)] = page.evaluate(KEPT)
    assert words == ["/static/js/lang/fr.js"]
    page.click("#lang")
    expect(page.locator("h2").first).to_have_text("New room")
    # The English copy takes over while the page is open, and the French one is dropped.
    wait_for(
        page, "navigator.serviceWorker.controller?.scriptURL.endsWith('?lang=en')", timeout=20.0
    )
    wait_for(page, "caches.keys().then((names) => names.length === 1)")
    [(english, words)] = page.evaluate(KEPT)
    assert english != french
    assert words == ["/static/js/lang/en.js"]
    # So the page opens offline in the reader's language: its words are kept.
    page.context.set_offline(True)
    try:
        page.reload()
        expect(page.locator("h2").first).to_have_text("New room")
    finally:
        page.context.set_offline(False)


def test_the_lesson_teaches_in_french(pages: Pages, shot: Shot) -> None:
    page = pages.open("/", locale="fr-FR")
    page.fill("#name", "Élève")
    page.click("[data-submit=learn] button")
    coach = page.locator(".coach")
    expect(page.locator(".pile")).to_have_count(5)
    expect(coach).to_contain_text("Nombres")
    expect(coach).to_contain_text("sur 5 valeurs")
    expect(page.locator(".status.mine")).to_be_visible()
    expect(page.locator(".pile.hinted, [data-act=knock].hinted").first).to_be_visible()
    expect(coach).to_contain_text(re.compile("prenez la carte qui brille|frappez pour finir"))
    # A card tapped before taking (it is marked disabled) says to take one first.
    page.locator(".hand .card").first.click(force=True)
    told = f"Prenez d{APOSTROPHE}abord une carte sur une pile."
    expect(page.locator("#toast")).to_have_text(told)
    in_french(page, shot, "lesson")


def test_a_chat_refusal_is_said_in_french_with_the_wait(pages: Pages) -> None:
    page = pages.open("/", locale="fr-FR")
    page.fill("#name", "Léa")
    page.locator("[data-submit=create] button.primary").click()
    expect(page.locator(".panel h2").first).to_contain_text("Joueurs")
    for number in range(6):
        page.fill("#chat-text", f"salut {number}")
        page.press("#chat-text", "Enter")
    # A space before the colon, as French writes it.
    expect(page.locator(".chatlog p").first).to_have_text("Vous : salut 0")
    expect(page.locator("#toast")).to_have_text(
        re.compile(rf"^Trop de messages d{APOSTROPHE}un coup : attendez \d+ s\.$")
    )


def test_a_refused_setting_is_said_in_french(pages: Pages) -> None:
    """A host who asks for fewer seats than are taken is refused (bad_settings) in French, not in
    the server's English words, with the seats the setting allows."""
    page = pages.open("/", locale="fr-FR")
    page.fill("#name", "Léa")
    page.locator("[data-submit=create] button.primary").click()
    for _ in range(2):
        page.click("[data-act=add-bot][data-level=easy]")
    expect(page.locator(".seatlist .badge", has_text="ordinateur")).to_have_count(2)
    page.select_option("#set-seats", "2")
    expect(page.locator("#toast")).to_have_text(
        "Ce réglage accepte au plus 2 joueurs : trop sont déjà assis."
    )
    expect(page.locator("#set-seats")).to_have_value("6")


def test_rounds_out_of_range_in_the_lobby_leave_the_rooms_in_the_field(pages: Pages) -> None:
    """The host types 0 rounds: refused before it is sent, in French, and the field shows the
    rounds the room has again (it kept the 0 while everyone else saw the room's)."""
    page = pages.open("/", locale="fr-FR")
    page.fill("#name", "Léo")
    page.locator("[data-submit=create] button.primary").click()
    expect(page.locator(".code")).to_be_visible()
    rounds = page.locator("#set-rounds")
    rounds.fill("3")
    rounds.press("Tab")
    expect(rounds).to_have_attribute("value", "3")  # the room's rounds, as drawn
    rounds.fill("0")
    rounds.press("Tab")
    expect(page.locator("#toast")).to_have_text("Les manches vont de 1 à 50.")
    expect(rounds).to_have_value("3")


def test_rounds_out_of_range_are_said_in_french_before_the_room_is_made(pages: Pages) -> None:
    """The server would refuse them in its English words (a 422 naming the field)."""
    page = pages.open("/", locale="fr-FR")
    page.fill("#name", "Léa")
    summary = page.locator("[data-submit=create] summary")
    summary.click()
    page.fill("#set-rounds", "99")
    summary.click()
    page.locator("[data-submit=create] button.primary").click()
    expect(page.locator("[data-submit=create] [role=alert]")).to_have_text(
        "Les manches vont de 1 à 50."
    )
    expect(page.locator("#set-rounds")).to_be_focused()
    assert page.url == pages.server.url + "/"


def test_a_french_page_writes_decimals_with_a_comma(pages: Pages) -> None:
    player = {"name": "Zoé", "tag": None, "others": [], "matches": 3, "wins": 1, "rounds": 4}
    player |= {"average_points": -2.5, "best_hand": None}
    page = pages.open(None, locale="fr-FR")
    page.route("**/api/players/*", lambda route: route.fulfill(json=player))
    page.goto(pages.server.url + "/players/Zo%C3%A9")
    expect(page.locator(".stat b")).to_have_text(["3", "1", "4", "\N{MINUS SIGN}2,5"])


@pytest.mark.parametrize(
    ("locale", "heading", "listed"),
    [
        ("en-US", "Tia, Tib, and Tic won", "won by Tia, Tib, and Tic"),
        ("fr-FR", "Tia, Tib et Tic ont gagné", "gagnée par Tia, Tib et Tic"),
    ],
)
def test_three_winners_are_listed_as_a_sentence_of_the_language(
    pages: Pages, locale: str, heading: str, listed: str
) -> None:
    """A first place shared by three is written as the language lists names ("A and B and C"
    before), on the match page and in the list of matches; the match is played, its answers
    given as they are but for the winners."""
    names = ["Tia", "Tib", "Tic"]
    in_thread(play_matches, pages.server, names, 1)
    found = api(pages.server, "GET", "/api/matches?player=Tia&limit=1").json()["matches"]
    match_id = found[0]["id"]

    def three_winners(route: Any) -> None:
        answer = route.fetch()
        body = answer.json()
        for match in body.get("matches", [body]):
            match["winners"] = names
        route.fulfill(response=answer, json=body)

    page = pages.open(None, locale=locale)
    page.route(re.compile(r"/api/matches(/[0-9a-f]{32})?(\?.*)?$"), three_winners)
    page.goto(f"{pages.server.url}/matches/{match_id}")
    expect(page.locator("h1")).to_have_text(heading)
    page.goto(f"{pages.server.url}/history?player=Tia")
    expect(page.locator("a", has_text=listed).first).to_be_visible()


BOT_NAMES = re.compile(r"\b(Easy|Normal|Strong) bot\b")


def test_a_french_table_names_its_computer_players_in_french(pages: Pages) -> None:
    """The server names its bots in English ("Easy bot", "Normal bot 2"), and its answers keep
    those names; a French page names them in French wherever it shows them: the lobby (whose
    Remove buttons still remove them), the tags, the moves, the results and the match's page.
    A person's name stays as given, one like a bot's too."""
    page = pages.open("/", locale="fr-FR")
    page.fill("#name", "Zoé")
    page.locator("[data-submit=create] summary").click()
    page.fill("#set-rounds", "1")
    page.locator("[data-submit=create] button.primary").click()
    expect(page.locator(".code")).to_be_visible()
    match = ROOM_URL.search(page.url)
    assert match is not None
    code = match[1]
    join_room(pages.server, code, "Normal bot")  # a person, first to take the name
    for level in ("easy", "normal", "easy", "strong"):
        page.click(f"[data-act=add-bot][data-level={level}]")
    names = ["Zoé", "Normal bot", "Bot facile", "Bot moyen 2", "Bot facile 2", "Bot fort"]
    expect(page.locator(".seatlist .who:not(.free)")).to_have_text(names)
    players = api(pages.server, "GET", f"/api/rooms/{code}").json()["players"]
    assert [player["name"] for player in players] == [
        "Zoé",
        "Normal bot",
        "Easy bot",
        "Normal bot 2",
        "Easy bot 2",
        "Strong bot",
    ]
    # The host's buttons name them as shown, and remove them as the server names them.
    for name in ("Bot facile 2", "Normal bot"):
        page.click(f"button[aria-label='Retirer {name}']")
        names.remove(name)
        expect(page.locator(".seatlist .who:not(.free)")).to_have_text(names)

    page.click("[data-act=start]")
    expect(page.locator(".felt .seat .who")).to_have_text(["Bot facile", "Bot moyen 2", "Bot fort"])
    expect(page.locator(".felt .seat").first).to_have_attribute(
        "aria-label", re.compile(r"^Bot facile: ")
    )
    # The first move is the first bot's (Zoé deals); the log lists the newest first.
    expect(page.locator(".moves li").last).to_contain_text(re.compile(r"^Bot facile a "))
    assert not BOT_NAMES.search(visible_text(page))
    play_to_the_end(page)
    standings = page.locator(".standings .name")
    expect(standings).to_have_count(4)
    assert sorted(standings.all_inner_texts()) == [
        "Bot facile",
        "Bot fort",
        "Bot moyen 2",
        "Zoé (vous)",
    ]
    assert not BOT_NAMES.search(visible_text(page))

    page.click(".sticky-actions a[href^='/matches/']")
    expect(page.locator(".standings td", has_text="Bot fort")).to_have_text("Bot fort (ordinateur)")
    expect(page.locator(".hands .who").first).to_be_visible()
    assert not BOT_NAMES.search(visible_text(page))
    match_id = page.url.rsplit("/", 1)[1]
    seats = api(pages.server, "GET", f"/api/matches/{match_id}").json()["players"]
    assert sorted(seat["name"] for seat in seats) == [
        "Easy bot",
        "Normal bot 2",
        "Strong bot",
        "Zoé",
    ]

    # A stored hand the deal does not give: the check names its bot in French too.
    def altered(route: Any) -> None:
        body = route.fetch().json()
        for hand in body["rounds"][0]["hands"]:
            if hand["name"] == "Strong bot":
                hand["cards"].reverse()
        route.fulfill(json=body)

    page.route(f"**/api/matches/{match_id}", altered)
    page.reload()
    verdict = page.locator(".verdict.bad").first
    expect(verdict).to_contain_text("Manche 1, Bot fort : la main refaite depuis la graine")
    assert not BOT_NAMES.search(visible_text(page))
