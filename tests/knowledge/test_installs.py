"""A question asking to install a repository's project is answered by what installs that project, not another."""

import pytest

from knowledge.indexing import term_statistics
from knowledge.search import answers, composer
from knowledge.search.code_blocks import COMMAND
from knowledge.search.installs import installs_another, installs_only, says_how_to_install
from knowledge.search.intent import plan_question
from tests.factories import make_indexed_repo
from tests.knowledge.test_composer import hit


def repository(n: int, content: str):
    return hit(n, content, repo_id="humanfriendly-10.0")


def test_a_unit_installing_only_another_package_is_no_answer():
    # humanfriendly's README says nothing of installing it; "How do I install humanfriendly?" was answered by its
    # note on Windows: "If this doesn't work then you can install the colorama package …".
    sources = [repository(1, "")]
    question = "How do I install humanfriendly?"
    for unit, another in [
        ("If this doesn't work then you can install the colorama package, it is used once installed.", True),
        (f"{COMMAND}pip install colorama", True),
        (f"{COMMAND}pip install -r docs/requirements.txt", True),  # what the file lists
        (f"{COMMAND}npm i -D typescript", True),
        (f"{COMMAND}pip install humanfriendly", False),
        (f"{COMMAND}pip install 'Human_Friendly[cli]>=10'", False),  # as registries compare names
        (f"{COMMAND}pip install -e .", False),  # the project in this folder
        (f"{COMMAND}pip install dist/humanfriendly-10.0-py3-none-any.whl", False),
        (f"{COMMAND}pip install git+https://github.com/xolox/python-humanfriendly", False),
        (f"{COMMAND}npm install", False),  # installs nothing named
        ("You can install the latest package from PyPI.", False),
        ("It extends a program by installing a plugin for it.", False),
    ]:
        assert installs_another(question, {(1, 0): unit}, sources) is another, unit
    # A command installing the project beside another is an answer.
    both = {(1, 0): "Install it with its extras:", (1, 1): f"{COMMAND}pip install colorama humanfriendly"}
    assert not installs_another(question, both, sources)


def test_once_the_project_is_installed_by_its_name_a_folder_installs_it_for_its_developers():
    # python-dotenv's "How do I install python-dotenv?": "pip install python-dotenv", then its CONTRIBUTING's
    # "Documentation is published with mkdocs:" over `pip install -r requirements-docs.txt`, `pip install -e .`.
    sources = [hit(1, "", repo_id="python-dotenv-1.0.1")]
    question = "How do I install python-dotenv?"
    by_name = {(1, 0): "\x03Getting Started:", (1, 1): f"{COMMAND}pip install python-dotenv"}
    developers = {(2, 0): "Documentation is published with mkdocs:",
                  (2, 1): f"{COMMAND}$ pip install -r requirements-docs.txt\n$ pip install -e .\n$ mkdocs serve"}
    assert not installs_another(question, developers, sources)
    assert installs_another(question, developers, sources, by_name)
    assert not installs_another(question, {(2, 0): f"{COMMAND}pipx install python-dotenv"}, sources, by_name)


def test_an_extract_saying_nothing_of_installing_answers_no_install_question():
    # filesize's README never says how to install it: "How do I install filesize?" was answered by its option "bits —
    # (boolean) Enables bit sizes, default is false".
    bits = hit(1, "### bits\n_*(boolean)*_ Enables `bit` sizes of the file size, default is `false`",
               repo_id="filesize-10.1.6")
    assert composer.compose("How do I install filesize?", [bits], entry_match=False).text == ""
    assert composer.compose("How do I get the file size in bits?", [bits], entry_match=False).text
    # A sentence naming a registry says how.
    npm = hit(1, "## Getting it\n\nThe filesize package is published on npm for every release.",
              repo_id="filesize-10.1.6")
    assert composer.compose("How do I install filesize?", [npm], entry_match=False).text
    # Nor does an example of its code: backoff's README says nothing of installing, and "Как установить backoff?"
    # quoted "The backoff decorators may also be combined …:" over two decorated functions.
    combined = hit(1, "## Using multiple decorators\n\nThe backoff decorators may also be combined to specify "
                      "different backoff behavior for different cases:\n\n```python\n"
                      "@backoff.on_exception(backoff.expo, HTTPError, max_time=60)\n"
                      "def poll_for_message(queue):\n    return queue.get()\n```\n",
                   repo_id="backoff-2.2.1")
    for question in ("How do I install backoff?", "Как установить backoff?"):
        assert composer.compose(question, [combined], entry_match=False).text == "", question
    assert says_how_to_install({(1, 0): f"{COMMAND}pip install backoff"})
    assert says_how_to_install({(1, 0): f"{COMMAND}uv add backoff"})


def test_only_a_question_asking_to_install_the_repositorys_project_by_its_name():
    unit = {(1, 0): f"{COMMAND}pip install colorama"}
    assert not installs_another("How do I install dependencies?", unit, [repository(1, "")])
    assert not installs_another("How do I install it?", unit, [repository(1, "")])
    assert not installs_another("How do I install humanfriendly?", unit, [hit(1, "")])  # no repository quoted
    assert installs_another("How do I install the humanfriendly package?", unit, [repository(1, "")])


def test_the_extract_quotes_what_installs_the_project():
    windows = repository(1, "## Windows support\n\nIf this doesn't work then you can install the colorama package, it "
                            "will be used automatically once installed.")
    install = repository(2, "## Installation\n\nThe package is on PyPI:\n\n```\n$ pip install humanfriendly\n```\n")
    text = composer.compose("How do I install humanfriendly?", [windows, install], entry_match=False).text
    assert text == "The package is on PyPI: [2]\n    $ pip install humanfriendly"
    assert composer.compose("How do I install humanfriendly?", [windows], entry_match=False).text == ""


def test_a_row_of_the_repositorys_code_tells_nobody_how_to_install_it():
    # humanfriendly's "How do I install humanfriendly?" quoted "`setup` (setup.py): Setup script for the
    # humanfriendly package.", toolz's added versioneer's "Git-specific installation logic for Versioneer." after
    # `pip install toolz`.
    from knowledge.search.layer_text import quotable

    row = hit(1, "", qname="setup", kind="module", docstring="Setup script for the humanfriendly package.",
              source_path="setup.py", repo_id="humanfriendly-10.0")
    row.layer = "C1"
    assert quotable(row, question="How do I install humanfriendly?") == ""
    assert quotable(row, question="What does setup.py do?") == (
        "`setup` (setup.py): Setup script for the humanfriendly package.")


def test_an_extract_that_only_installs_answers_no_other_how_to():
    # "How do I use xmltodict from the command line?" found only its README's ways to install it, and was answered by
    # "For installing xmltodict using Anaconda/Miniconda … all you need to do is:" and `conda install -c conda-forge
    # xmltodict` (confidence 0.98).
    conda = hit(1, "### Using conda\n\nFor installing xmltodict using Anaconda/Miniconda from the conda-forge channel "
                   "all you need to do is:\n\n```sh\n$ conda install -c conda-forge xmltodict\n```\n",
                repo_id="xmltodict-0.14.2")
    for question in ("How do I use xmltodict from the command line?", "How do I use xmltodict with pipes?"):
        assert composer.compose(question, [conda], entry_match=False).text == "", question
    # It answers installing, setting up or getting it.
    for question in ("How do I install xmltodict with conda?", "How do I set up xmltodict with conda?",
                     "How do I get xmltodict from conda-forge?", "Как установить xmltodict через conda?"):
        assert "conda install -c conda-forge xmltodict" in composer.compose(question, [conda], entry_match=False).text
    # An extract saying more than how to install answers as before.
    cli = hit(1, "## Command line\n\nInstall it with conda, then use it from the command line to pipe objects to a "
                 "script:\n\n```sh\n$ conda install -c conda-forge xmltodict\n$ bunzip2 dump.xml.bz2 | xmltodict.py 2 "
                 "| script.py\n```\n", repo_id="xmltodict-0.14.2")
    assert "xmltodict.py 2" in composer.compose("How do I use xmltodict from the command line?", [cli],
                                                entry_match=False).text
    # Nor does a package manager's name make a sentence one that installs (deepmerge's test script).
    script = {(1, 0): '`script` npm run test is handled by "test": "tape test/*.js" (npm npm_script).'}
    assert not installs_only("How do I run the tests?", script)
    assert installs_only("How do I run the tests?", {(1, 0): f"{COMMAND}npm install deepmerge"})


def test_once_the_project_is_installed_another_sources_text_installing_nothing_is_left_out():
    # loguru's "How do I install loguru?" quoted `pip install loguru`, then its notifier's "Loguru can easily be
    # combined with the great apprise library (must be installed separately) …" and fifteen lines of its code.
    install = hit(1, "## Installation\n\n```\npip install loguru\n```\n", repo_id="loguru-0.8.0")
    notifier = hit(2, "### Exhaustive notifier\n\nLoguru can easily be combined with the great apprise library "
                      "(must be installed separately) to receive an e-mail when your program fail unexpectedly.\n\n"
                      "```python\nimport apprise\n\nnotifier = apprise.Apprise()\n```\n", repo_id="loguru-0.8.0")
    text = composer.compose("How do I install loguru?", [install, notifier], entry_match=False).text
    assert text == "Installation: [1]\n    pip install loguru", text
    # Before the project is installed by its name, and for any other question, it is quoted as before.
    assert "apprise" in composer.compose("How do I install loguru?", [notifier], entry_match=False).text
    assert "apprise" in composer.compose("How do I get an e-mail when my program fails?", [install, notifier],
                                         entry_match=False).text


def test_a_unit_that_only_installs_answers_no_question_asking_what():
    # cachetools' "What cache classes are available?" opened with "cachetools is available from PyPI and can be
    # installed by running:" and `pip install cachetools` (confidence 0.94): the question's "available".
    install = hit(1, "## Installation\n\ncachetools is available from PyPI and can be installed by running:\n\n"
                     "```\npip install cachetools\n```\n", repo_id="cachetools-8.0.3")
    classes = hit(2, "## Cache implementations\n\nThis module provides several classes implementing caches using "
                     "different cache algorithms, all available as subclasses of Cache.\n", repo_id="cachetools-8.0.3")
    text = composer.compose("What cache classes are available?", [install, classes], entry_match=False).text
    assert text == "This module provides several classes implementing caches using different cache algorithms, all " \
                   "available as subclasses of Cache. [2]", text
    # A sentence saying something was installed, without a command, is no unit installing ("установлен": set up).
    monument = hit(3, "## История\n\nПамятник был установлен на площади в 1990 году.\n")
    assert composer.compose("Когда появился памятник на площади?", [monument], entry_match=False).text == \
        "Памятник был установлен на площади в 1990 году. [1]"
    # Asked how to install it, or whether a registry has it, it is the answer.
    assert composer.compose("Is cachetools available from PyPI?", [install, classes], entry_match=False).text \
        .startswith("cachetools is available from PyPI and can be installed by running: [1]")
    assert "pip install cachetools" in composer.compose("How do I install cachetools?", [install, classes],
                                                        entry_match=False).text


def test_a_heading_over_the_command_installing_the_project_answers_whatever_the_questions_words():
    # humanize's "### From PyPI" over `python3 -m pip install --upgrade humanize`: "Как установить humanize?" shares
    # no word with it, and the extract ranked by meaning quoted nothing.
    pypi = repository(1, "### From PyPI\n\n```bash\npython3 -m pip install --upgrade humanfriendly\n```\n")
    checklist = repository(2, "# Release checklist\n\n- [ ] Tag the release and push it.\n")
    for question in ["Как установить humanfriendly?", "How do I install humanfriendly?"]:
        text = composer.compose(question, [checklist, pypi], entry_match=False).text
        assert text == "From PyPI: [2]\n    python3 -m pip install --upgrade humanfriendly", (question, text)


@pytest.mark.django_db
def test_a_russian_question_how_to_install_a_project_documented_in_english_is_answered(tmp_path):
    # "Как установить python-dotenv?" found its IPython extension (no plan step searched "install"), and an extract of
    # English sentences shares no word of a Russian question but the project's name, in every chunk.
    sections = "".join(f"## Feature {n}\n\nThe acme-tool reads the settings of part {n} and keeps them.\n\n"
                       for n in range(8))
    readme = f"# acme-tool\n\n{sections}## Getting Started\n\n```shell\npip install acme-tool\n```\n"
    kb = make_indexed_repo(tmp_path / "acme-tool", {"README.md": readme, "acme/__init__.py": '"""Acme."""\n'})
    term_statistics.take(kb.pk)
    kb.refresh_from_db()
    plan = plan_question("Как установить acme-tool?")
    assert plan.intent == "workflow" and plan.steps[1].query == "install acme-tool", plan
    answer = answers.answer("Как установить acme-tool?", [kb.pk])
    assert not answer.refused, answer.reasons
    assert "pip install acme-tool" in answer.text, answer.text
