@testable import PostgresStore
import Testing

/// The placeholder rewriting and statement splitting of the PostgreSQL connection, as PostgreSQL's lexer reads SQL.
@Suite("PostgreSQL statement text")
struct PostgresStatementTextTests {
    func rendered(_ sql: String, nulls: Set<Int> = []) -> [String] {
        PostgresStatementText.statements(in: sql).map { $0.rendered { nulls.contains($0) } }
    }

    @Test("? becomes $1, $2… in order")
    func numbers() {
        #expect(rendered("SELECT ? + ?, x FROM t WHERE a = ?") == ["SELECT $1 + $2, x FROM t WHERE a = $3"])
    }

    @Test(
        "? inside literals, quoted identifiers, comments and dollar quotes is text",
        arguments: [
            ("SELECT '?', ?", "SELECT '?', $1"),
            ("SELECT 'it''s ?', ?", "SELECT 'it''s ?', $1"),
            (#"SELECT E'\'?', ?"#, #"SELECT E'\'?', $1"#),
            (#"SELECT 'a\', ?"#, #"SELECT 'a\', $1"#),
            (#"SELECT "a?""b", ?"#, #"SELECT "a?""b", $1"#),
            ("SELECT ? -- ?\n, ?", "SELECT $1 -- ?\n, $2"),
            ("SELECT /* ? /* ? */ ? */ ?", "SELECT /* ? /* ? */ ? */ $1"),
            ("SELECT $$?$$, $tag$ ? $$ ? $tag$, ?", "SELECT $$?$$, $tag$ ? $$ ? $tag$, $1"),
            ("SELECT a$b, ?", "SELECT a$b, $1"),
        ])
    func literals(sql: String, expected: String) {
        #expect(rendered(sql) == [expected])
    }

    @Test("NULL arguments are written as NULL and take no number; words stay apart")
    func nulls() {
        #expect(rendered("SELECT ? IS NULL, ?, ?", nulls: [0, 2]) == ["SELECT NULL IS NULL, $1, NULL"])
        #expect(rendered("SELECT?FROM t", nulls: [0]) == ["SELECT NULL FROM t"])
        #expect(rendered("SELECT?", nulls: []) == ["SELECT $1"])
    }

    @Test("a script splits at the semicolons that end its statements; empty ones and comment-only ones go")
    func splitting() {
        let script = "CREATE TABLE a (x TEXT DEFAULT ';'); ; -- only a comment;\nINSERT INTO a VALUES ($$;$$); /* ; */"
        #expect(rendered(script) == ["CREATE TABLE a (x TEXT DEFAULT ';')", " -- only a comment;\nINSERT INTO a VALUES ($$;$$)"])
        #expect(PostgresStatementText.statements(in: "  ; -- nothing\n").isEmpty)
    }
}
