# Sourced by .ci/run and the bench scripts: pick_jdk prints the home of a JDK 21 or newer
# (JAVA_HOME if it is one, else Temurin 25, else any under /usr/lib/jvm, else the javac on PATH)
# and fails when there is none.

java_major() {
  "$1/bin/java" -XshowSettings:properties -version 2>&1 |
    awk -F'= ' '/java.specification.version/ {print $2}' | cut -d. -f1
}

pick_jdk() {
  local candidate
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*; do
    [ -n "$candidate" ] && [ -x "$candidate/bin/javac" ] || continue
    if [ "$(java_major "$candidate")" -ge 21 ] 2>/dev/null; then
      echo "$candidate"
      return 0
    fi
  done
  if command -v javac >/dev/null 2>&1; then
    candidate=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    if [ "$(java_major "$candidate")" -ge 21 ] 2>/dev/null; then
      echo "$candidate"
      return 0
    fi
  fi
  return 1
}
