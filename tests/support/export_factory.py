"""Builds database state for the export tests directly with the ORM models."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from corpus.bio import char_spans_to_tags
from corpus.tokens import normalize, tokenize, tokenize_with_offsets
from db.models import (
    Adjudication,
    Annotation,
    AspectAlignment,
    AspectCategory,
    AspectTerm,
    FinalChoice,
    GlossaryTerm,
    Project,
    SourceSentence,
    TaggingItem,
    Translation,
    User,
    UserRole,
)

T0 = datetime(2026, 1, 1, 12, 0, 0)


def tags_for(text: str, terms: list[str]) -> list[str]:
    """BIO over the canonical tokens of ``text`` marking the first occurrence of each term."""
    text = normalize(text)
    spans = []
    for term in terms:
        start = text.index(normalize(term))
        spans.append((start, start + len(normalize(term))))
    return char_spans_to_tags(tokenize_with_offsets(text), spans)


def char_span(text: str, term: str) -> tuple[int, int]:
    start = normalize(text).index(normalize(term))
    return start, start + len(normalize(term))


class Corpus:
    def __init__(self, session: Session):
        self.s = session
        self.project = session.scalars(select(Project).order_by(Project.id)).first()
        self.users: dict[str, User] = {}
        self.ordinal = 0
        self.clock = T0

    def tick(self) -> datetime:
        self.clock += timedelta(seconds=1)
        return self.clock

    def user(self, name: str, role: str = "translator") -> User:
        if name not in self.users:
            found = self.s.scalars(select(User).where(User.username == name)).first()
            if found is not None:
                self.users[name] = found
                return found
            u = User(username=name, display_name=name, roles=[UserRole(role=role)])
            self.s.add(u)
            self.s.flush()
            self.users[name] = u
        return self.users[name]

    def sentence(self, sid: str, text: str, aspects=(), domain="restaurant", split="train", categories=()):
        self.ordinal += 1
        s = SourceSentence(project_id=self.project.id, domain=domain, split=split, sentence_id=sid, text=text,
                           ordinal=self.ordinal)
        self.s.add(s)
        self.s.flush()
        for i, (term, start, end, polarity) in enumerate(aspects):
            assert text[start:end] == term, (text, term)
            self.s.add(AspectTerm(sentence_id=s.id, position=i, term=term, start=start, end=end, polarity=polarity))
        for i, (category, polarity) in enumerate(categories):
            self.s.add(AspectCategory(sentence_id=s.id, position=i, category=category, polarity=polarity))
        self.s.flush()
        self.s.refresh(s)
        return s

    def translation(self, sentence, translator: str, phase: str, text: str | None, *, untranslatable=False,
                    links: dict[int, str | None] | None = None, status="submitted", guidelines="1.0"):
        t = Translation(sentence_id=sentence.id, phase=phase, translator_id=self.user(translator).id, text=text,
                        untranslatable=untranslatable, untranslatable_reason="idiom" if untranslatable else None,
                        status=status, guidelines_version=guidelines,
                        submitted_at=self.tick() if status == "submitted" else None)
        self.s.add(t)
        self.s.flush()
        terms = {a.position: a for a in sentence.aspects}
        for position, hindi in (links or {}).items():
            if hindi is None:
                self.s.add(AspectAlignment(translation_id=t.id, aspect_term_id=terms[position].id, dropped=True,
                                           drop_reason="dropped"))
            else:
                start, end = char_span(text, hindi)
                self.s.add(AspectAlignment(translation_id=t.id, aspect_term_id=terms[position].id, start=start, end=end))
        self.s.flush()
        return t

    def item(self, translation) -> TaggingItem:
        item = TaggingItem(translation_id=translation.id, tokens=tokenize(translation.text), tokenizer="hi-canon/1.0",
                           translation_version=translation.version)
        self.s.add(item)
        self.s.flush()
        return item

    def annotate(self, item, annotator: str, tags, status="submitted") -> Annotation:
        a = Annotation(item_id=item.id, annotator_id=self.user(annotator, "annotator").id, tags=list(tags),
                       status=status, no_aspects=all(t == "O" for t in tags),
                       submitted_at=self.tick() if status == "submitted" else None)
        self.s.add(a)
        self.s.flush()
        return a

    def adjudicate(self, item, tags, source="edited") -> Adjudication:
        a = Adjudication(item_id=item.id, tags=list(tags), source=source, created_at=self.tick())
        self.s.add(a)
        self.s.flush()
        return a

    def final(self, sentence, translation) -> FinalChoice:
        fc = FinalChoice(sentence_id=sentence.id, translation_id=translation.id if translation else None,
                         auto_translation_id=translation.id if translation else None, policy="aware-unless-blind-better",
                         created_at=self.tick())
        self.s.add(fc)
        self.s.flush()
        return fc

    def glossary(self, english: str, hindi: str, rule: str = "keep-roman") -> None:
        self.s.add(GlossaryTerm(project_id=self.project.id, english=english, hindi=hindi, rule=rule))
        self.s.flush()

    def gold(self, sentence, hindi: str, terms: list[str], *, translator="asha", phase="aware",
             annotators=("meera", "kabir"), links=None, final=True, other_translations=()):
        """A translation tagged in agreement by every annotator and (optionally) chosen as final."""
        t = self.translation(sentence, translator, phase, hindi, links=links)
        for name, text in other_translations:
            self.translation(sentence, name, phase, text)
        item = self.item(t)
        tags = tags_for(hindi, terms)
        for a in annotators:
            self.annotate(item, a, tags)
        if final:
            self.final(sentence, t)
        return t, item


def build_sample(engine: Engine) -> dict:
    """The shared sample: every kind of sentence the export must handle, and every reason to leave one out."""
    with Session(engine) as session:
        c = Corpus(session)
        ids = {}
        s = c.sentence("3121", "But the staff was so horrible to us.", [("staff", 8, 13, "negative")],
                       categories=[("service", "negative")])
        c.gold(s, "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।", ["स्टाफ़"], links={0: "स्टाफ़"},
               other_translations=[("ravi", "पर स्टाफ़ हमारे साथ बहुत ख़राब था।"), ("neha", "लेकिन कर्मचारी हमारे प्रति बहुत बुरे थे।")])
        s = c.sentence("77", "I went to Brooklyn for the miso soup and the sushi.",
                       [("miso soup", 27, 36, "positive"), ("sushi", 45, 50, "neutral")])
        c.gold(s, "मैं मिसो सूप और सुशी के लिए Brooklyn गया।", ["मिसो सूप", "सुशी"],
               links={0: "मिसो सूप", 1: "सुशी"})
        s = c.sentence("78", "Brooklyn is great.")
        c.gold(s, "Brooklyn बढ़िया है।", [])
        s = c.sentence("892:1", "The screen is bright & the keyboard <works> \"fine\".",
                       [("screen", 4, 10, "positive"), ("keyboard", 27, 35, "positive")], domain="laptop", split="test")
        t, item = c.gold(s, "स्\u200dक्रीन चमकदार है & कीबोर्ड <ठीक> \"चलता\" है।", ["स्\u200dक्रीन", "कीबोर्ड"],
                         links={0: "स्\u200dक्रीन"}, annotators=("meera", "kabir"))
        s = c.sentence("1001", "The everything bagel with lox spread was good.",
                       [("everything bagel with lox spread", 4, 36, "positive")], split="test")
        hindi = "लॉक्स स्प्रेड के साथ एवरीथिंग बेगल अच्छा था।"
        t = c.translation(s, "asha", "aware", hindi, links={0: "लॉक्स स्प्रेड के साथ एवरीथिंग बेगल"})
        item = c.item(t)
        c.annotate(item, "meera", tags_for(hindi, ["लॉक्स स्प्रेड", "एवरीथिंग बेगल"]))
        c.annotate(item, "kabir", tags_for(hindi, ["लॉक्स स्प्रेड के साथ एवरीथिंग बेगल"]))
        c.adjudicate(item, tags_for(hindi, ["लॉक्स स्प्रेड", "एवरीथिंग बेगल"]), source="accepted")
        c.final(s, t)
        ids["adjudicated_translation"] = t.id
        # Left out: untranslatable by majority.
        s = c.sentence("500", "The icing on the cake was the icing on the cake.", [("icing", 4, 9, "positive")])
        c.translation(s, "asha", "aware", None, untranslatable=True)
        c.translation(s, "ravi", "aware", None, untranslatable=True)
        c.translation(s, "neha", "aware", "केक पर आइसिंग सबसे अच्छी थी।")
        # Left out: annotators disagree, no adjudication.
        s = c.sentence("501", "Great pizza.", [("pizza", 6, 11, "positive")])
        hindi = "बढ़िया पिज़्ज़ा।"
        t = c.translation(s, "asha", "aware", hindi)
        item = c.item(t)
        c.annotate(item, "meera", tags_for(hindi, ["पिज़्ज़ा"]))
        c.annotate(item, "kabir", tags_for(hindi, []))
        c.final(s, t)
        # Left out: no final translation yet.
        s = c.sentence("502", "Nice view.", [("view", 5, 9, "positive")])
        c.translation(s, "asha", "aware", "अच्छा नज़ारा।")
        # Left out: the lead kept no translation.
        s = c.sentence("503", "Boy oh boy.", [])
        t = c.translation(s, "asha", "aware", "वाह भई वाह।")
        c.final(s, None)
        # Blind translation of 3121 by ravi, tagged and agreed: appears with every translation.
        session.commit()
    return ids
