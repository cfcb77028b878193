package envfile

import "testing"

func TestExpand(t *testing.T) {
	t.Setenv("ENVFILE_TEST_HOME", "/home/ada")
	vars := Expand(mustParse(t, "HOST=db\nURL=postgres://${HOST}:5432\nCACHE=$ENVFILE_TEST_HOME/.cache\n"))
	if vars["URL"] != "postgres://db:5432" || vars["CACHE"] != "/home/ada/.cache" {
		t.Fatalf("vars = %v", vars)
	}
}
