"""Project settings (admin): the method's knobs, and the team's transliteration glossary."""

from __future__ import annotations

import streamlit as st

from corpus.final_choice import POLICIES
from corpus.glossary import RULES
from corpus.transliterate import SCHEME_KEYS, scheme_label
from db.project_settings import PHONETIC_SCHEME, ProjectSettings, TAGGING_SCOPES, load_settings
from db.settings_change import save_settings
from db.translation import delete_glossary_term, glossary, set_glossary_term
from db.typing import learned_forms
from ui.common import ADMIN, get_engine, project_id, require_role
from ui.text import md_escape

user = require_role(*ADMIN)
engine = get_engine()
pid = project_id()
current = load_settings(engine, pid)

st.title("Project settings")

with st.form("project_settings"):
    name = st.text_input("Project name", value=current.name)
    c1, c2 = st.columns(2)
    per_phase = c1.number_input("Translators per sentence and phase", 1, 20, current.translators_per_phase,
                                help="The seed paper had 4 translators per phase.")
    per_item = c2.number_input("Annotators per translation", 1, 10, current.annotators_per_item)
    groups = st.radio(
        "Translator groups", ("same", "disjoint"), index=("same", "disjoint").index(current.phase_groups),
        format_func=lambda g: {"same": "Same people may do both phases (blind first, enforced)",
                               "disjoint": "Separate groups for the blind and the aware phase"}[g],
    )
    scope = st.radio("Tagging scope", TAGGING_SCOPES, index=TAGGING_SCOPES.index(current.tagging_scope),
                     format_func=lambda s: {"all": "Tag every submitted translation",
                                            "best": "Tag only each phase's best translation"}[s])
    see_source = st.checkbox("Annotators see the English sentence", value=current.annotators_see_source)
    prefill = st.checkbox("Pre-fill tagging from the translators' aspect maps", value=current.prefill_from_aspect_map)
    policies = list(POLICIES)
    policy = st.selectbox("Final translation policy", policies,
                          index=policies.index(current.final_policy) if current.final_policy in policies else 0,
                          help="\n\n".join(f"**{k}**: {v}" for k, v in POLICIES.items()))
    schemes = (PHONETIC_SCHEME, *SCHEME_KEYS)
    scheme = st.selectbox("Default typing scheme for translators", schemes,
                          format_func=lambda k: "Phonetic (suggestions)" if k == PHONETIC_SCHEME else scheme_label(k),
                          index=schemes.index(current.transliteration_scheme)
                          if current.transliteration_scheme in schemes else 0,
                          help="What a translator's editor opens in, unless they chose another scheme in "
                               "their browser.")
    danda = st.checkbox("Typing “.” or “|” after a word writes the danda “।”", value=current.danda,
                        help="In the translators' phonetic editor.")
    st.markdown("**Model suggestions** in the span editor (a CRF trained on the project's gold, in the background)")
    m1, m2, m3 = st.columns(3)
    suggest = m1.checkbox("Suggest aspect spans from the model", value=current.model_suggestions,
                          help="Items without suggestions from the translator's aspect map (aspect-blind "
                               "translations) get the model's spans, dashed, until accepted.")
    min_gold = m2.number_input("Gold items before suggesting", 1, 100_000, current.suggest_min_gold)
    every = m3.number_input("Retrain after every N new gold items", 1, 100_000, current.suggest_retrain_every)
    st.markdown("**Projected suggestions** for items without a complete aspect map of their own (aspect-blind "
                "translations), from item one: each English aspect looked for in the item's words through")
    p1, p2, p3 = st.columns(3)
    from_aware = p1.checkbox("the aware translations' aspect maps", value=current.suggest_from_aware,
                             key="settings_suggest_from_aware")
    from_glossary = p2.checkbox("the glossary", value=current.suggest_from_glossary,
                                key="settings_suggest_from_glossary")
    from_translit = p3.checkbox("the loanword's transliteration", value=current.suggest_from_transliteration,
                                key="settings_suggest_from_transliteration",
                                help="keyboard → कीबोर्ड (guideline 2), or a name kept in Roman script")
    st.markdown("**Local language model** (optional; off while its address is empty)")
    st.caption("An OpenAI-compatible chat endpoint on the team's own machine (Ollama: http://127.0.0.1:11434/v1, "
               "vLLM: http://127.0.0.1:8000/v1) proposes spans for the aspects the rules above did not find. "
               "**Text leaves this machine only to this address**: when an annotator opens such an item, its Hindi "
               "words, its English sentence and those aspects are sent there (once per item and model). Leave the "
               "address empty and nothing is sent anywhere.")
    l1, l2, l3 = st.columns([3, 2, 1])
    llm_url = l1.text_input("Model address (base URL)", value=current.llm_base_url, key="settings_llm_base_url",
                            placeholder="http://127.0.0.1:11434/v1")
    llm_name = l2.text_input("Model name", value=current.llm_model, key="settings_llm_model",
                             placeholder="llama3.1:8b")
    llm_timeout = l3.number_input("Timeout (s)", 0.5, 60.0, min(max(float(current.llm_timeout_s), 0.5), 60.0),
                                  step=0.5, key="settings_llm_timeout_s",
                                  help="How long opening an item waits for the model at most (per network step).")
    saved = st.form_submit_button("Save settings", type="primary")

if saved:
    new = ProjectSettings(name, int(per_phase), int(per_item), groups, scope, see_source, prefill, policy, scheme,
                          suggest, int(min_gold), int(every), suggest_from_aware=from_aware,
                          suggest_from_glossary=from_glossary, suggest_from_transliteration=from_translit,
                          danda=danda, llm_base_url=llm_url, llm_model=llm_name, llm_timeout_s=float(llm_timeout))
    try:
        changed = save_settings(engine, pid, new, user.id)
    except ValueError as exc:
        st.error(md_escape(str(exc)))
    else:
        st.success(f"Saved ({len(changed)} changed)." if changed else "Nothing changed.")

st.header("Glossary")
st.caption("How the team writes terms: rule 2 transliterates into Devanagari, rule 1 keeps names in Roman "
           "script. Translators get these as suggestions and gentle warnings.")
entries = glossary(engine, pid)
if entries:
    st.dataframe([{"English": e.english, "write": e.hindi, "rule": e.rule} for e in entries],
                 hide_index=True, width="stretch")
with st.form("glossary_add", clear_on_submit=True):
    c1, c2, c3 = st.columns([2, 2, 1])
    english = c1.text_input("English term")
    hindi = c2.text_input("Written as", help="Devanagari for 'transliterate'; the Roman form for 'keep-roman'.")
    rule = c3.selectbox("Rule", RULES)
    add = st.form_submit_button("Add or update term")
if add:
    try:
        entry = set_glossary_term(engine, pid, english, hindi, rule, user.id)
    except ValueError as exc:
        st.error(md_escape(str(exc)))
    else:
        st.success(f"Saved: {md_escape(entry.english)} → {md_escape(entry.hindi)}")
        st.rerun()
if entries:
    with st.form("glossary_delete"):
        gone = st.selectbox("Remove a term", [e.english for e in entries], index=None)
        remove = st.form_submit_button("Remove")
    if remove and gone:
        delete_glossary_term(engine, pid, gone, user.id)
        st.rerun()

st.subheader("Learned while typing")
st.caption("Devanagari spellings translators picked for a Roman word in the translate editor. The most used "
           "one is offered first for that word next time, in this project.")
learned = learned_forms(engine, pid)
if learned:
    st.dataframe([{"typed": f.roman, "written as": f.devanagari, "times picked": f.uses,
                   "first picked by": f.first_user or "", "last picked": f.last_used_at.strftime("%Y-%m-%d %H:%M")}
                  for f in learned], hide_index=True, width="stretch", key="typing_learned")
else:
    st.caption("Nothing learned yet.")
