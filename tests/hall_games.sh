# tests/hall_games.sh, sourced by the hall's tests: four short 9x9 games
# for the boards of an evening, rendered as camera footage.
#   render_games GOSCRIBE DIR FPS PACE [WxH]
#                                        DIR/gN.avi (+ gN.truth.sgf), N = 1..4,
#                                        640x360 unless WxH is given
#   game_moves FILE                      the main line of an SGF, one ";B[ee]" a move
# Board 3's game is a handicap game (two stones set up, White first), as
# the pairing file's board 3.  The camera is straight over Black's side
# (--rotation 0) and both players confirm the end, so each record has its
# result.
render_games() {
  local gs=$1 dir=$2 fps=$3 pace=$4 size=${5:-640x360} n
  printf '(;GM[1]FF[4]SZ[9];B[ee];W[cc];B[gc];W[cg];B[gg];W[ce];B[eg];W[dd];B[ec];W[fe];B[ge];W[dg])\n' > "$dir/g1.sgf"
  printf '(;GM[1]FF[4]SZ[9];B[cc];W[gg];B[cg];W[gc];B[ee];W[ge];B[ec];W[eg];B[ce];W[fd];B[dd];W[ff])\n' > "$dir/g2.sgf"
  printf '(;GM[1]FF[4]SZ[9]HA[2]AB[cc][gg];W[gc];B[cg];W[ee];B[ge];W[ec];B[eg];W[ce];B[fd];W[dd];B[ff])\n' > "$dir/g3.sgf"
  printf '(;GM[1]FF[4]SZ[9];B[ec];W[eg];B[ce];W[ge];B[cc];W[gg];B[gc];W[cg];B[dd];W[ff];B[fd];W[df])\n' > "$dir/g4.sgf"
  for n in 1 2 3 4; do
    "$gs" render "$dir/g$n.sgf" -o "$dir/g$n.avi" --pace "$pace" --fps "$fps" --frame-size "$size" --seed $((n + 1)) \
      --end confirm --rotation 0 -q > "$dir/render-$n.log" 2>&1 || return 1
  done
}
game_moves() {
  grep -o ';[BW]\[[a-s]*\]' "$1" | tr -d '\n'
}
