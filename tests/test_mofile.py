"""The .mo index reader: every msgid gettext sees, and nothing else."""

from __future__ import annotations

import gettext
import io
import struct

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo

from ficsfen.i18n import LOCALE_DIR, Message, translation
from ficsfen.mofile import MoFormatError, MsgId, msgids, read_msgids


def compiled(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def test_singular_plural_and_context_ids():
    catalog = Catalog(locale="fr")
    catalog.add("Hello", "Bonjour")
    catalog.add(("{count} game", "{count} games"), ("{count} partie", "{count} parties"))
    catalog.add("Open", "Ouvrir", context="menu")
    data = compiled(catalog)
    assert sorted(msgids(data), key=lambda m: m.singular) == [
        MsgId("Hello"), MsgId("Open", context="menu"), MsgId("{count} game", "{count} games")]
    # the same messages gettext translates from those bytes
    t = gettext.GNUTranslations(io.BytesIO(data))
    assert t.gettext("Hello") == "Bonjour" and t.pgettext("menu", "Open") == "Ouvrir"


def test_big_endian_catalogs_read_the_same():
    catalog = Catalog(locale="fr")
    catalog.add("Hello", "Bonjour")
    little = compiled(catalog)
    _magic, revision, count, originals, translations = struct.unpack("<5I", little[:20])
    # rewrite the header and both tables in big-endian order
    big = bytearray(little)
    big[:20] = struct.pack(">5I", 0x950412DE, revision, count, originals, translations)
    for table in (originals, translations):
        for i in range(count):
            pair = struct.unpack_from("<2I", little, table + 8 * i)
            struct.pack_into(">2I", big, table + 8 * i, *pair)
    assert msgids(bytes(big)) == msgids(little) == (MsgId("Hello"),)


def test_the_charset_of_the_header_decodes_the_ids():
    catalog = Catalog(locale="fr", charset="latin-1")
    catalog.add("Caf\u00e9", "Caf\u00e9 (fr)")
    assert msgids(compiled(catalog)) == (MsgId("Caf\u00e9"),)


@pytest.mark.parametrize("data", [b"", b"\x00" * 40, struct.pack("<5I", 0x950412DE, 0, 5, 1000, 2000)])
def test_what_is_not_a_catalog_is_refused(data):
    with pytest.raises(MoFormatError):
        msgids(data)


def test_rendered_messages_are_the_gettext_chains():
    # i18n renders every listed msgid from a table built once; it must say what gettext says
    for mo in sorted(LOCALE_DIR.glob("fr/LC_MESSAGES/*.mo")):
        singles = [m.singular for m in read_msgids(mo) if m.context is None]
        assert singles, mo
        assert [Message(s).render("fr") for s in singles] == [translation("fr").gettext(s) for s in singles]
    assert Message("Invalid FEN: {error}").render("fr") == "FEN invalide\u202f: {error}"
