# tests/net_servers.sh, sourced by the network camera tests
# (cli_record_http*.sh, cli_record_rtsp.sh): a rendered game and the servers
# that stream it, each started and stopped by the test itself, on 127.0.0.1.
#   net_game GOSCRIBE DIR [MOVES]  DIR/g.avi: 9 (MOVES) moves of a 9x9 game
#                                  at 10 fps, 640x360, 22 s and the last
#                                  picture 2 s more (+ g.truth.sgf,
#                                  g.truth.jsonl); the camera over Black's
#                                  side; the board still for 0.7-1.2 s after
#                                  each move (at a live pace a loaded
#                                  machine's hiccups must not eat a still
#                                  moment: render's --pace 2 is too tight)
#   moves_of SGF                   the main line, one ";B[ee]" a move
#   free_port                      a TCP port of 127.0.0.1 nobody listens on
#   wait_listen PORT [SEC]         until something listens on PORT (read in
#                                  /proc/net/tcp: a probe connection would be
#                                  ffmpeg's one client); 1 when SEC go by
#   serve_mjpeg VIDEO PORT [FROM]  ffmpeg serving VIDEO (MJPEG) from FROM
#                                  seconds in real time as MJPEG over HTTP
#                                  (multipart, what phone camera apps serve)
#                                  at http://127.0.0.1:PORT/video to one
#                                  client; its pid in $served once it
#                                  listens (the caller stops it if no client
#                                  comes)
#   stop_pid PID                   kills PID (if alive, even stopped) and
#                                  reaps it
#   wait_any SEC PID...            until one of the PIDs has ended; 1 when SEC
#                                  go by first
#   wait_line SEC FILE RE PID      until FILE has a line matching RE; 1 when
#                                  PID ends or SEC go by first (no test hangs
#                                  on a recorder that died)
net_game() {
  printf '(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[cc];B[gc];W[cg];B[gg];W[ce];B[eg];W[dd];B[ec];W[fe];B[ge];W[dg])\n' >"$2/g9.sgf"
  "$1" render "$2/g9.sgf" -o "$2/r.avi" --pace 1.5 --moves "${3:-9}" --fps 10 --frame-size 640x360 --seed 2 \
    --rotation 0 -q >"$2/render.log" 2>&1 || return 1
  local ext
  for ext in truth.sgf truth.jsonl truth.cal; do mv "$2/r.$ext" "$2/g.$ext" || return 1; done
  # the last picture held 2 s more: the last stone settles before the stream ends
  ffmpeg -nostdin -loglevel error -i "$2/r.avi" -vf tpad=stop_mode=clone:stop_duration=2 -c:v mjpeg -q:v 3 \
    "$2/g.avi" >>"$2/render.log" 2>&1
}
moves_of() { grep -o ';[BW]\[[a-s]*\]' "$1" | tr -d '\n'; }
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
wait_listen() {
  local hex i
  hex=$(printf '%04X' "$1")
  for i in $(seq $((${2:-10} * 20))); do
    grep -q "^ *[0-9]*: 0100007F:$hex 00000000:0000 0A" /proc/net/tcp && return 0
    # or already serving: a one-client server (ffmpeg -listen 1) stops
    # listening once a reconnecting recorder got in between two looks
    grep -q "^ *[0-9]*: 0100007F:$hex [0-9A-F]*:[0-9A-F]* 01" /proc/net/tcp && return 0
    sleep 0.05
  done
  return 1
}
serve_mjpeg() {
  local from=${3:-0}
  ffmpeg -nostdin -loglevel error -re -ss "$from" -i "$1" -c copy -f mpjpeg -listen 1 "http://127.0.0.1:$2/video" \
    >/dev/null 2>&1 &
  served=$!
  wait_listen "$2" 10
}
wait_any() {
  local sec=$1 i p
  shift
  for i in $(seq $((sec * 10))); do
    for p in "$@"; do kill -0 "$p" 2>/dev/null || return 0; done
    sleep 0.1
  done
  return 1
}
wait_line() {
  local i
  for i in $(seq $(($1 * 20))); do
    grep -q -- "$3" "$2" 2>/dev/null && return 0
    kill -0 "$4" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}
stop_pid() {
  kill -KILL "$1" 2>/dev/null
  wait "$1" 2>/dev/null
  return 0
}
