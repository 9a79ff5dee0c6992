"""history: list, get, get_audio, download (one id: the audio; several: a ZIP), delete.
Parameters: {"ids": [history item ids, newest first], "delete_id", "search": a term in one item's text}"""

import hashlib
import io
import zipfile

from sdk_steps import audio, client, params, run

p = params()
el = client()
ids = p["ids"]


def download_many():
    data = b"".join(el.history.download(history_item_ids=ids))
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        bad = archive.testzip()  # reads every entry and checks its CRC-32
        entries = [{"name": i.filename, "size": i.file_size, "compress_type": i.compress_type, "sha256": hashlib.sha256(archive.read(i)).hexdigest()} for i in archive.infolist()]
    return {"first_bad_entry": bad, "entries": entries}


run(
    [
        ("list", lambda: el.history.list(page_size=len(ids))),
        ("list_paged", lambda: el.history.list(page_size=1, start_after_history_item_id=ids[0])),
        ("list_filtered", lambda: el.history.list(sort_direction="asc", search=p["search"], source="TTS")),
        ("get", lambda: el.history.get(ids[0])),
        ("get_audio", lambda: audio(el.history.get_audio(ids[0]))),
        ("download_one", lambda: audio(el.history.download(history_item_ids=[ids[0]]))),
        ("download_many", download_many),
        ("delete", lambda: el.history.delete(p["delete_id"])),
        ("get_deleted", lambda: el.history.get(p["delete_id"])),
    ]
)
