package envfile

import "testing"

func TestQuotedValues(t *testing.T) {
	vars := mustParse(t, "A='single # not a comment'\nB=\"two\\nlines\"\nC=\"unbalanced\n")
	cases := map[string]string{"A": "single # not a comment", "B": "two\nlines", "C": "\"unbalanced"}
	for key, want := range cases {
		t.Run(key, func(t *testing.T) {
			if vars[key] != want {
				t.Fatalf("%s = %q, want %q", key, vars[key], want)
			}
		})
	}
}
