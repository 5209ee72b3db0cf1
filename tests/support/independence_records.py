"""One sentence that two translators translated, as work-file records: the case the independence rule is about
(ravi translated sentence 3121 blind, so he may not tag asha's aware translation of it)."""

SENTENCE = {"type": "sentence", "id": "3121", "domain": "restaurant", "split": "train",
            "text": "But the staff was so horrible to us.",
            "aspects": [{"term": "staff", "from": 8, "to": 13, "polarity": "negative"}]}
AWARE = {"type": "translation", "sentence_id": "3121", "phase": "aware", "translator": "asha",
         "text": "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।", "untranslatable": False}
BLIND_BY_RAVI = {"type": "translation", "sentence_id": "3121", "phase": "blind", "translator": "ravi",
                 "text": "पर कर्मचारी हमसे बहुत बुरे से पेश आए।", "untranslatable": False}
