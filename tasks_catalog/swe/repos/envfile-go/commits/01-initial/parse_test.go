package envfile

import (
	"strings"
	"testing"
)

func mustParse(t *testing.T, text string) map[string]string {
	t.Helper()
	vars, err := Parse(strings.NewReader(text))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return vars
}

func TestParseAssignments(t *testing.T) {
	vars := mustParse(t, "DB_HOST=db\n# comment\n\nDB_PORT = 5432\n")
	if vars["DB_HOST"] != "db" || vars["DB_PORT"] != "5432" || len(vars) != 2 {
		t.Fatalf("vars = %v", vars)
	}
}

func TestLaterAssignmentWins(t *testing.T) {
	if got := mustParse(t, "A=1\nA=2\n")["A"]; got != "2" {
		t.Fatalf("A = %q", got)
	}
}

func TestRejectsLineWithoutEquals(t *testing.T) {
	if _, err := Parse(strings.NewReader("JUSTAWORD\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("err = %v", err)
	}
}
