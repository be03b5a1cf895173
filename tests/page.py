"""The report page's embedded data (docs/report.md): the JSON document in its
bc-data block, gzip'd, in base64. page_data(PATH) -> dict; ValueError when
the block is missing, holds a '<' or is not that."""
import base64, gzip, json

TAG = '<script type="application/octet-stream" id="bc-data" data-encoding="gzip+base64">'

def page_data(path):
    text = open(path, encoding="utf-8").read()
    start = text.find(TAG)
    if start < 0:
        raise ValueError("no data block")
    start += len(TAG)
    block = text[start:text.index("</script>", start)]
    if "<" in block:
        raise ValueError("a '<' in the data block")
    try:
        return json.loads(gzip.decompress(base64.b64decode(block, validate=True)))
    except (OSError, EOFError, base64.binascii.Error) as e:
        raise ValueError(f"the data block is not gzip'd JSON in base64: {e}")
