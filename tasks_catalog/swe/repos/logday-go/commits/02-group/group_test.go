package logday

import (
	"reflect"
	"testing"
)

func TestGroupByDay(t *testing.T) {
	events := []Event{{jan1Noon, "start"}, {jan2Early, "tick"}, {jan1Late, "stop"}}
	days := GroupByDay(events)
	if got := SortedDays(days); !reflect.DeepEqual(got, []string{"2024-01-01", "2024-01-02"}) {
		t.Fatalf("days = %v", got)
	}
	if got := days["2024-01-01"]; len(got) != 2 || got[1].Line != "stop" {
		t.Fatalf("2024-01-01 = %v", got)
	}
}
