package envfile

import "os"

// Expand replaces ${NAME} and $NAME in every value with earlier values of vars or, failing
// that, the process environment.
func Expand(vars map[string]string) map[string]string {
	out := make(map[string]string, len(vars))
	for key, value := range vars {
		out[key] = os.Expand(value, func(name string) string {
			if v, ok := vars[name]; ok {
				return v
			}
			return os.Getenv(name)
		})
	}
	return out
}
