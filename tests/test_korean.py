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
    "meeting.md": "# 3월 12일 회의록\n\n다들 수고하셨습니다. 감사합니다 ㅋㅋㅋ 우리가 정한 것: 경기도 사무실로 옮긴다.\n",
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
        assert [(t.token, t.zipf) for t in q.terms] == [("서버가", 4.61), ("켜져", 0.0)]  # 서버 (server) as listed
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


def test_korean_chit_chat_is_silent(tmp_path: Path) -> None:
    """Thanks, "we", "understood" and the shorthand of initials name no note, though one note
    holds them: a Korean word is as common as its noun or verb stem ("감사합니다" is 감사, Zipf
    5.5; "알겠습니다" is 알), and initials ("ㅋㅋㅋ", "ㅇㅋ") are interjections."""
    with indexed_connection(tmp_path, NOTES) as conn:
        for message in ["감사합니다", "우리는", "네 알겠습니다", "수고하셨습니다", "ㅋㅋㅋ", "ㅇㅋ", "ㅇㅇ 맞아"]:
            d = decide(conn, message)
            assert not d.spoken, (message, d.route, d.notes)
        assert decide(conn, "ㅋㅋㅋ").route == "no-terms"
        n = searchable_count(conn)
        (thanks,) = build_query(conn, "감사합니다", n, Settings()).terms
        assert 5.4 < thanks.zipf < 5.6
        assert hangul.reading_stems("알겠습니다") == ["알", "알겠"]  # 겠습니다, then 습니다


def test_a_listed_korean_word_is_not_cut_into_a_shorter_one(tmp_path: Path) -> None:
    """"경기도" (a province) is a word of Korean's list as typed: it is not 경기 (a game) + 도."""
    with indexed_connection(tmp_path, NOTES) as conn:
        n = searchable_count(conn)
        (term,) = [t for t in build_query(conn, "경기도 날씨", n, Settings()).terms if t.token == "경기도"]
        assert [a.word for a in term.alternatives] == ["경기도"]
        assert hangul.forms(conn, "경기도", strip=False) == []
        assert hangul.stems("경기도") == ["경기"]  # what strip=True would read


def test_a_korean_request_word_does_not_sink_an_english_question(tmp_path: Path) -> None:
    """"해줘" (please do) is a form of 하다, one of Korean's commonest words: an English question
    ending in it is judged as without it."""
    with indexed_connection(tmp_path, NOTES) as conn:
        plain = decide(conn, "docker compose file after a pull")
        asked = decide(conn, "docker compose file after a pull 해줘")
        assert plain.notes == asked.notes == ["docker.md"]


def test_an_adverb_of_an_adjective_is_as_common_as_its_stem(tmp_path: Path) -> None:
    """"어떻게" (how) and "그렇게" (so) are 어떻 and 그렇 with the adverb's ending 게, which
    wordfreq's Korean list holds without it: "how do I do this" and "do it that way" name no
    note, though a title or a body holds the word. A two-syllable noun ending in 게 ("가게", a
    shop) is not cut."""
    notes = {
        **NOTES,
        "logs.md": "# 도커 로그는 어떻게 보나\n\n`docker logs -f` 로 본다.\n",
        "shop.md": "# 동네 가게\n\n빵집은 월요일에 쉰다. 그렇게 알고 있다.\n",
    }
    with indexed_connection(tmp_path, notes) as conn:
        for message in ["이거 어떻게 해", "그렇게 해줘", "어떻게 지내?"]:
            d = decide(conn, message)
            assert not d.spoken, (message, d.route, d.notes)
        assert decide(conn, "도커 로그 어떻게 봐?").notes == ["logs.md"]
        n = searchable_count(conn)
        zipf = {t.token: round(t.zipf, 2) for t in build_query(conn, "가게 어떻게 그렇게", n, Settings()).terms}
        assert zipf == {"가게": 4.62, "어떻게": 5.55, "그렇게": 5.75}
        assert hangul.reading_stems("어떻게") == ["어떻"] and hangul.reading_stems("가게") == []
