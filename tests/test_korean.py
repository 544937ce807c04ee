"""Korean notes and messages: a noun written with a particle is the noun (``notesdb.hangul``),
and a message of Hangul is read as Korean, whose everyday words weigh little."""

from __future__ import annotations

from pathlib import Path

from conftest import indexed_connection
from notesdb import hangul
from notesdb.db import searchable_count
from notesdb.decide import decide
from notesdb.query import build_query, detect_language
from notesdb.rank import rank
from notesdb.settings import Settings

NOTES = {
    "server.md": "# 홈 서버 설정\n\n서버는 라즈베리 파이 4에서 돈다. 재부팅하면 도커를 다시 띄운다.\n",
    "deploy.md": "# 배포 체크리스트\n\n배포 전에 테스트를 돌리고, 마이그레이션을 확인한다.\n",
    "cat.md": "# 고양이 나비\n\n나비의 사료는 하루 두 번. 동물병원은 수요일에 간다.\n",
    "docker.md": "# Docker compose\n\nThe compose file lives in ~/stack; `docker compose up -d` after a pull.\n",
    "branch.md": "# 브랜치 규칙\n\nmain에 직접 커밋하지 않는다. 항상 PR을 연다.\n",
}


def test_particles_and_verb_endings_come_off() -> None:
    assert hangul.stems("서버가") == ["서버"]
    assert hangul.stems("서버에서는") == ["서버", "서버에서"]
    assert hangul.stems("배포했어") == ["배포"]
    assert hangul.stems("서버들이") == ["서버", "서버들"]
    # a stem keeps two syllables: "사과" (apple) is not 사 + the particle 과
    assert hangul.stems("사과") == []
    assert hangul.stems("docker가") == ["docker"]  # an English word with its particle
    assert hangul.stems("server") == [] and hangul.stems("") == []


def test_the_notes_forms_of_a_message_noun(tmp_path: Path) -> None:
    with indexed_connection(tmp_path, NOTES) as conn:
        assert hangul.forms(conn, "서버가") == [("서버", 1), ("서버는", 1)]
        assert hangul.forms(conn, "나비") == [("나비의", 1)]  # the bare word itself is the exact match
        assert hangul.forms(conn, "나비가") == [("나비", 1), ("나비의", 1)]
        assert hangul.forms(conn, "docker") == []  # the notes write it without a particle
        assert hangul.forms(conn, "main") == [("main에", 1)]
        assert hangul.forms(conn, "pr이") == [("pr을", 1)]


def test_a_korean_message_finds_the_note_by_its_noun(tmp_path: Path) -> None:
    with indexed_connection(tmp_path, NOTES) as conn:
        n = searchable_count(conn)
        ranking = rank(conn, build_query(conn, "서버가 안 켜져", n, Settings()))
        top = ranking.candidates[0]
        assert top.path == "server.md"
        assert [(h.token, h.word, h.place) for h in top.about] == [("서버가", "서버", "title")]
        d = decide(conn, "배포할 때 뭐 확인해야 돼?")
        assert d.spoken and d.notes == ["deploy.md"]
        assert d.top_scores[0]["hits"] == ["배포할->배포", "확인해야->확인한다"]


def test_a_message_of_hangul_is_read_as_korean(tmp_path: Path) -> None:
    with indexed_connection(tmp_path, NOTES) as conn:
        n = searchable_count(conn)
        q = build_query(conn, "서버가 안 켜져", n, Settings())
        assert q.language == "ko"
        assert [(t.token, t.zipf) for t in q.terms] == [("서버가", 0.0), ("켜져", 0.0)]
        assert build_query(conn, "fix the 배포 script", n, Settings()).language == "en"
        # Korean's everyday words weigh little: "파일" (file) is at Zipf 4.9 in Korean, and an
        # alternative's Zipf is read in the message's language ("서버", server: 4.6)
        (server,) = [a for t in q.terms for a in t.alternatives if a.word == "서버"]
        assert 4.5 < server.zipf < 4.7
        # a Latin word in Korean text keeps its English frequency ("compose", Zipf about 3.6)
        q2 = build_query(conn, "도커 compose 파일 어디 있어?", n, Settings())
        assert q2.language == "ko"
        (compose,) = [t for t in q2.terms if t.token == "compose"]
        assert 3.0 < compose.zipf < 4.5


def test_detect_language_counts_hangul_tokens() -> None:
    assert detect_language({}, {}, ["서버가", "안", "켜져"]) == "ko"
    assert detect_language({}, {}, ["계속해"]) == "ko"  # one Hangul token is enough: no other language writes it
    assert detect_language({"the": 7.7, "is": 7.0}, {}, ["the", "서버", "is", "down"]) == "en"


def test_an_english_word_of_a_korean_message_finds_it_with_a_particle(tmp_path: Path) -> None:
    """Korean writes a particle after an English word too ("main에", "PR을"), in one token."""
    with indexed_connection(tmp_path, NOTES) as conn:
        n = searchable_count(conn)
        q = build_query(conn, "main 브랜치에 바로 커밋해도 돼?", n, Settings())
        assert q.language == "ko"
        (main,) = [t for t in q.terms if t.token == "main"]
        assert [(a.word, a.how) for a in main.alternatives] == [("main에", "inflected")]
        top = rank(conn, q).candidates[0]
        assert top.path == "branch.md"
        assert {h.word for h in top.hits} == {"main에", "브랜치", "커밋하지"}
