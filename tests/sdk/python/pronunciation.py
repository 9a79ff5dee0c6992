"""pronunciation_dictionaries: create from a PLS file and from rules, list, get, download a version,
add and remove rules (new versions), archive; text_to_speech with and without the dictionaries'
locators (convert, and convert_with_timestamps for the alignment).
Parameters: {"voice_id", "text", "pls": the lexicon's text, "other_id": another account's dictionary id or null}"""

import io

from elevenlabs import PronunciationDictionaryVersionLocator
from elevenlabs.pronunciation_dictionaries import (
    BodyAddAPronunciationDictionaryV1PronunciationDictionariesAddFromRulesPostRulesItem_Alias as Alias,
    BodyAddAPronunciationDictionaryV1PronunciationDictionariesAddFromRulesPostRulesItem_Phoneme as Phoneme,
)
from elevenlabs.pronunciation_dictionaries.rules import (
    PronunciationDictionaryRule_Alias as RuleAlias,
)

from sdk_steps import audio, client, params, run

p = params()
el = client()
made = {}


def from_file():
    made["file"] = el.pronunciation_dictionaries.create_from_file(
        name="From a lexicon", file=("lexicon.pls", io.BytesIO(p["pls"].encode("utf-8")), "application/pls+xml"), description="PLS"
    )
    return made["file"]


def from_rules():
    made["rules"] = el.pronunciation_dictionaries.create_from_rules(
        name="From rules",
        rules=[
            Alias(string_to_replace="UN", alias="United Nations"),
            Phoneme(string_to_replace="tomato", phoneme="T AH0 M AA1 T OW2", alphabet="cmu-arpabet"),
        ],
    )
    return made["rules"]


def first_page():
    made["page"] = el.pronunciation_dictionaries.list(page_size=1)
    return made["page"]


def locators():
    return [
        PronunciationDictionaryVersionLocator(pronunciation_dictionary_id=made["rules"].id, version_id=made["rules"].version_id),
        PronunciationDictionaryVersionLocator(pronunciation_dictionary_id=made["file"].id),
    ]


def say(with_dictionaries):
    extra = {"pronunciation_dictionary_locators": locators()} if with_dictionaries else {}
    return audio(el.text_to_speech.convert(p["voice_id"], text=p["text"], output_format="pcm_22050", **extra))


def timestamps():
    return el.text_to_speech.convert_with_timestamps(p["voice_id"], text=p["text"], pronunciation_dictionary_locators=locators())


def foreign():
    return audio(el.text_to_speech.convert(
        p["voice_id"],
        text=p["text"],
        pronunciation_dictionary_locators=[PronunciationDictionaryVersionLocator(pronunciation_dictionary_id=p["other_id"] or "x")],
    ))


run(
    [
        ("from_file", from_file),
        ("from_rules", from_rules),
        ("list", first_page),
        ("list_next", lambda: el.pronunciation_dictionaries.list(page_size=1, cursor=made["page"].next_cursor)),
        ("get", lambda: el.pronunciation_dictionaries.get(made["file"].id)),
        ("download", lambda: audio(el.pronunciation_dictionaries.download(made["file"].id, made["file"].version_id))),
        ("plain", lambda: say(False)),
        ("with_dictionaries", lambda: say(True)),
        ("timestamps", timestamps),
        ("foreign", foreign),
        ("get_foreign", lambda: el.pronunciation_dictionaries.get(p["other_id"])),
        ("add_rules", lambda: el.pronunciation_dictionaries.rules.add(made["rules"].id, rules=[RuleAlias(string_to_replace="WHO", alias="World Health Organization")])),
        ("remove_rules", lambda: el.pronunciation_dictionaries.rules.remove(made["rules"].id, rule_strings=["UN"])),
        ("get_after", lambda: el.pronunciation_dictionaries.get(made["rules"].id)),
        ("archive", lambda: el.pronunciation_dictionaries.update(made["file"].id, archived=True)),
        ("list_after_archive", lambda: el.pronunciation_dictionaries.list()),
    ]
)
