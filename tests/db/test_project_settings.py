"""Project settings have one reader (db/project_settings): every service that needs them reads through it,
so a missing project is the same error everywhere."""

from __future__ import annotations

import pytest

from db.assignment import assign_annotators, assign_translations, assignment_settings
from db.final_candidates import project_policy
from db.final_choice import record_auto_choices
from db.metrics_data import project_settings
from db.project_settings import ProjectNotFound, ProjectSettings, load_settings
from db.settings_change import save_settings
from tests.support.translation_fixtures import project_id

MISSING = 987654


@pytest.mark.parametrize("read", [
    load_settings,
    assignment_settings,
    project_policy,
    project_settings,
    record_auto_choices,
    lambda engine, pid: assign_annotators(engine, pid),
    lambda engine, pid: assign_translations(engine, pid, [], None),
], ids=["load_settings", "assignment_settings", "project_policy", "metrics project_settings",
        "record_auto_choices", "assign_annotators", "assign_translations"])
def test_a_missing_project_is_project_not_found_for_every_reader(engine, read):
    with pytest.raises(ProjectNotFound, match=f"no project with id {MISSING}"):
        read(engine, MISSING)


def test_project_not_found_is_still_caught_as_the_errors_callers_handled():
    assert issubclass(ProjectNotFound, LookupError) and issubclass(ProjectNotFound, ValueError)


def test_saving_settings_of_a_missing_project_is_refused(engine):
    current = load_settings(engine, project_id(engine))
    with pytest.raises(ProjectNotFound):
        save_settings(engine, MISSING, current, None)


def test_every_reader_reports_what_the_settings_page_stored(engine):
    pid = project_id(engine)
    current = load_settings(engine, pid)
    changed = ProjectSettings(**{**current.__dict__, "translators_per_phase": 3, "annotators_per_item": 2,
                                 "final_policy": "higher-rouge"})
    save_settings(engine, pid, changed, None)
    assert load_settings(engine, pid) == changed
    assert assignment_settings(engine, pid).per_phase == 3
    assert project_policy(engine, pid) == "higher-rouge"
    assert project_settings(engine, pid)["annotators_per_item"] == 2
