"""The channels that have a topic, as on FICS, and the ``help channel_list`` page.

Channels 0 to 255 (:data:`ficsfen.server.talk.CHANNELS`) are all open;
:data:`CHANNEL_TOPICS` names the ones FICS gives a topic, with FICS's
numbers, and is the one place they are written.  The help pages
``channel_list`` (``ficsfen/help/en`` and ``fr``) are made from it by
:func:`channel_list_page` (``python tools/channel_list.py`` writes them; a
test checks they are current).

pychess asks for ``help channel_list`` at login and reads the page between
a line that begins ``channels only for their designated topics.`` and one
that begins ``SPECIAL NOTE``: each line in between that begins with a
channel number (``50    General chat``) fills its channel list, every
other channel being "unofficial".  A number listed twice would stop its
reader, so each appears once; the page stays within one help page
(``[limits] help_page_lines``, 40 by default) so that the closing line is
not left for ``next``.
"""

from __future__ import annotations

from ficsfen.i18n import Message, msg

__all__ = ["CHANNEL_TOPICS", "channel_list_page"]

#: (channel, topic), in channel order: FICS's numbers for these topics.
CHANNEL_TOPICS: tuple[tuple[int, Message], ...] = (
    (0, msg("Server administrators")),
    (1, msg("Help for newcomers")),
    (2, msg("Discussion of the server")),
    (4, msg("Help for guests")),
    (5, msg("Service representatives")),
    (6, msg("Help with interfaces")),
    (7, msg("Online tours")),
    (48, msg("Tournament managers")),
    (49, msg("Tournaments")),
    (50, msg("General chat")),
    (53, msg("Chat for guests")),
    (55, msg("Chess discussion")),
    (63, msg("Chess advisers")),
    (64, msg("Computer chess")),
    (65, msg("Special events")),
    (72, msg("German")),
    (73, msg("Spanish")),
    (77, msg("French")),
    (91, msg("Suicide chess")),
    (92, msg("Wild chess")),
    (93, msg("Bughouse")),
    (97, msg("Crazyhouse")),
    (98, msg("Losers chess")),
    (99, msg("Atomic chess")),
)

#: The page's fixed parts, by language: before the list (its last line begins
#: with pychess's start marker in English), the note after it, the links.
_HEAD = {
    "en": ("channel_list\n\nDESCRIPTION\n"
           "  Channels 0 to 255 are rooms for talking (see \"help channel\"). Anyone\n"
           "  may join any of them; the numbers below have a topic, the same as on\n"
           "  FICS. Please use these\n"
           "channels only for their designated topics.\n"),
    "fr": ("channel_list\n\nDESCRIPTION\n"
           "  Les canaux 0 à 255 sont des salons de discussion (voir\n"
           "  «\u202fhelp channel\u202f»). Chacun peut rejoindre n’importe lequel\u202f; les\n"
           "  numéros ci-dessous ont un sujet, le même que sur FICS. Merci de n’y\n"
           "  parler que de leur sujet.\n"),
}
_NOTE = {
    "en": ("SPECIAL NOTE\n"
           "  The other channels have no set topic. Here guests may join and talk in\n"
           "  any channel; on FICS they may talk only in channels 4, 7 and 53.\n"),
    "fr": ("REMARQUE\n"
           "  Les autres canaux n’ont pas de sujet fixé. Ici, les invités peuvent\n"
           "  rejoindre tous les canaux et y parler\u202f; sur FICS, ils ne peuvent\n"
           "  parler que dans les canaux 4, 7 et 53.\n"),
}
_LINKS = {"en": "SEE ALSO\n  channel, inchannel, tell\n",
          "fr": "VOIR AUSSI\n  channel, inchannel, tell\n"}


def channel_list_page(lang: str) -> str:
    """The ``help channel_list`` page in ``lang`` (``en`` or ``fr``), from
    :data:`CHANNEL_TOPICS`: one line per channel, its number first.

    :raises KeyError: ``lang`` has no page.
    """
    rows = "".join(f"{number:<6}{topic.render(lang)}\n" for number, topic in CHANNEL_TOPICS)
    return f"{_HEAD[lang]}\n{rows}\n{_NOTE[lang]}\n{_LINKS[lang]}"
