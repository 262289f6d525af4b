"""Phrases that take back an answer just given, in the languages models answer in beyond English
and Chinese (`extract.retraction` has those): "wait", "actually", "correction", "I made a
mistake", "I miscounted" and their equivalents. Each phrase is one a reply uses to withdraw
what it said; words that also mean something else in running prose ("falsch" of a wrong
option, "en fait" as a filler before the answer) are left out.
"""

from __future__ import annotations

OTHER_LANGUAGES = (
    # French
    r"\battende[sz]\b|\bcorrection\b|\bje\s+me\s+suis\s+tromp[ée]e?\b|\bj'ai\s+fait\s+une\s+erreur\b"
    r"|\bj'ai\s+(?:mal\s+)?(?:compt[ée]|calcul[ée])\s+[^.\n]{0,40}?deux\s+fois\b|\ben\s+r[ée]alit[ée]\b",
    # German
    r"(?<=[.!?]\s)moment\s*[,!:]|\bwarte\b|\bkorrektur\b|\bich\s+habe\s+mich\s+(?:verrechnet|verzählt|geirrt)\b"
    r"|\btats[äa]chlich\s+(?:sind|ist)\b",
    # Spanish
    r"\bespera\b|\bcorrecci[óo]n\b|\bme\s+equivoqu[ée]\b|\ben\s+realidad\b|\bcomet[íi]\s+un\s+error\b",
    # Portuguese
    r"\bespere\b|\bcorre[çc][ãa]o\b|\bme\s+enganei\b|\bna\s+verdade\b|\bcometi\s+um\s+erro\b",
    # Italian
    r"\baspett[ai]\b|\bcorrezione\b|\bho\s+sbagliato\b|\bin\s+realt[àa]\b",
    # Russian
    r"подожд(?:и|ите)|на\s+самом\s+деле|исправление|я\s+ошиб(?:ся|лась)",
    # Japanese
    r"待って|訂正|間違え(?:まし)?た|実は",
    # Korean
    r"잠깐|정정|틀렸|다시\s*세어\s*보니|사실은",
    # Arabic
    r"انتظر|تصحيح|لقد\s+أخطأت|أخطأت|في\s+الواقع",
    # Hindi
    r"रुको|रुकिए|सुधार|मैंने\s+गलती\s+की|वास्तव\s+में",
    # Turkish
    r"\bbekle\b|\bdüzeltme\b|\byanlış\s+(?:saydım|hesapladım)\b|\baslında\b",
    # Indonesian
    r"\btunggu\b|\bkoreksi\b|\bsaya\s+salah\b|\bsebenarnya\b",
    # Vietnamese
    r"\bkhoan\b|\bkhoan\s+đã\b|\bsửa\s+lại\b|\btôi\s+(?:đã\s+)?(?:tính\s+)?nhầm\b|\bthực\s+ra\b",
    # Dutch
    r"\bwacht\b|\bcorrectie\b|\bik\s+heb\s+me\s+vergist\b|\beigenlijk\b",
)
OTHER_HINTS = (
    "attend", "correction", "tromp", "erreur", "deux fois", "réalit", "realit", "moment", "warte",
    "korrektur", "verrechnet", "verzählt", "geirrt", "tatsächlich", "tatsachlich", "espera",
    "correcci", "equivoqu", "realidad", "error", "espere", "corre", "enganei", "verdade", "erro",
    "aspett", "correzione", "sbagliato", "realt", "подожд", "на самом", "исправ", "ошиб", "待って",
    "訂正", "間違", "実は", "잠깐", "정정", "틀렸", "세어", "사실", "انتظر", "تصحيح", "أخطأت",
    "الواقع", "रुक", "सुधार", "गलती", "वास्तव", "bekle", "düzeltme", "yanlış", "aslında", "tunggu",
    "koreksi", "salah", "sebenarnya", "khoan", "sửa", "nhầm", "thực ra", "wacht", "correctie",
    "vergist", "eigenlijk",
)  # fmt: skip
"""Every match of one of OTHER_LANGUAGES contains one of these (lower-cased)."""
