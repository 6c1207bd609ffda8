#!/usr/bin/env bash
# mutate.sh: build firmware mutants (each a one-line change to the reference
# firmware that breaks the protocol) and check that the hardware-in-the-loop
# test catches every one; the unmutated firmware must pass first.
#
#   firmware-protocol/hil/mutate.sh              every mutant, TestHILDriver
#   MUTATE_RUN=TestHIL firmware-protocol/hil/mutate.sh   the games too (slower)
#   firmware-protocol/hil/mutate.sh cell-8bit    only the mutants named
#
# Needs what the HIL test needs (make gcc gcc-avr avr-libc binutils-avr
# libsimavr-dev). The mutants are built from a copy of ../firmware in a
# temporary directory (TABLA_HIL_FIRMWARE); the tree is never changed.
# Prints a table and exits 1 if a mutant survives or the baseline fails.
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$PATH:/usr/local/go/bin" CI="${CI:-true}"
run="${MUTATE_RUN:-TestHILDriver}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# name | file | sed expression (must change exactly one line) | what it breaks
mutants=(
  'crc-cellchange|tabla_proto.c|s/tabla_put_u16(w, crc);/tabla_put_u16(w, (uint16_t)(w->buf[0] == 3u ? crc ^ 0x0004u : crc));/|one CRC bit flipped in every CellChange'
  'cell-8bit|tabla_fw.c|s/tabla_put_u16(&w, i);/tabla_put_u16(\&w, (uint8_t)i);/|CellChange cell index truncated to 8 bits'
  'drop-ack|tabla_fw.c|s/send_ack(fw, fw->ack_queue\[k\].seq, fw->ack_queue\[k\].type);/if (fw->ack_queue[k].type != TABLA_T_LED_SET) send_ack(fw, fw->ack_queue[k].seq, fw->ack_queue[k].type);/|no Ack for LEDSet'
  'ack-wrong-seq|tabla_fw.c|s/send_ack(fw, fw->ack_queue\[k\].seq, fw->ack_queue\[k\].type);/send_ack(fw, (uint16_t)(fw->ack_queue[k].seq + 1u), fw->ack_queue[k].type);/|Acks name the next seq'
  'no-heartbeat|tabla_fw.c|s/send(fw, tabla_build_heartbeat(/(void)(tabla_build_heartbeat(/|heartbeats built, never sent'
  'slow-heartbeat|tabla_fw.c|s/(uint32_t)(now - fw->last_heartbeat) >= fw->cfg.heartbeat_ms)/(uint32_t)(now - fw->last_heartbeat) >= 2u * fw->cfg.heartbeat_ms)/|heartbeat every 2 intervals'
  'no-brightness|tabla_fw.c|s/return (uint8_t)(((uint16_t)c \* (uint16_t)(brightness + 1u)) >> 8);/(void)brightness; return c;/|Config brightness ignored'
  'no-blink|tabla_fw.c|s/if (l->blink == 0) {/if (1) {/|blinking LEDs shown steady'
  'blink-period|tabla_fw.c|s/period = (uint32_t)l->blink \* TABLA_BLINK_UNIT_MS;/period = (uint32_t)l->blink * 2u * TABLA_BLINK_UNIT_MS;/|blink period doubled'
  'rp2040-green|hal_rp2040.c|s/((uint32_t)p\[1\] << 24)/((uint32_t)p[0] << 24)/|RP2040 only: green sent as red on the strip'
  'rp2040-chain|hal_rp2040.c|s/REG(PIO_TXF(SM_CHAIN)) = CHAIN_WORDS \* 32u - 1u;/REG(PIO_TXF(SM_CHAIN)) = CHAIN_WORDS * 32u - 2u;/|RP2040 only: the chain read one bit short'
  'rp2040-scan-same|hal_rp2040.c|s/chain_same = diff == 0;/chain_same = 1;/|RP2040 only: every scan taken for unchanged'
  'usb-toggle|usb_cdc.c|s/    in_pid ^= 1u;/    (void)in_pid;/|RP2040 USB: bulk IN always DATA0'
  'usb-status-pid|usb_cdc.c|s/buf_give(BUF_CTRL(0, 0), BUF_FULL . BUF_DATA1);$/buf_give(BUF_CTRL(0, 0), BUF_FULL);/|RP2040 USB: EP0 status stages sent as DATA0'
  'usb-rx-short|usb_cdc.c|s/for (i = 0; i < len \&\& i < BULK_SIZE; i++) {/for (i = 0; i + 1u < len \&\& i < BULK_SIZE; i++) {/|RP2040 USB: the last byte of each OUT packet lost'
)

# run_hil DIR LOG: the HIL test on the firmware in DIR; 0 if it passed.
run_hil() {
  TABLA_HIL_FIRMWARE="$1" go test -count=1 -run "$run" . >"$2" 2>&1
}

# first_failure LOG: the first line saying why the test failed.
first_failure() {
  grep -m1 -E '_test\.go:[0-9]+: ' "$1" | sed -E 's/^[[:space:]]+//' | cut -c1-150 || true
}

cp -r ../firmware "$work/base"
rm -rf "$work/base/build"
start=$SECONDS
if ! run_hil "$work/base" "$work/base.log"; then
  echo "baseline: the unmutated firmware fails $run:"
  tail -30 "$work/base.log"
  exit 1
fi
echo "baseline: the unmutated firmware passes $run ($((SECONDS - start)) s)"
echo
printf '| %-15s | %-42s | %-6s | %s |\n' mutant change result 'first failure reported'
printf '|%s|%s|%s|%s|\n' "-----------------" "--------------------------------------------" "--------" "------------------------"
survivors=0
for m in "${mutants[@]}"; do
  IFS='|' read -r name file expr what <<<"$m"
  if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
  dir="$work/$name"
  cp -r "$work/base" "$dir"
  sed -i "$expr" "$dir/$file"
  if [ "$(diff "$work/base/$file" "$dir/$file" | grep -c '^>')" != 1 ]; then
    echo "mutant $name: the expression did not change exactly one line of $file (has the firmware changed?)"
    exit 1
  fi
  start=$SECONDS
  if run_hil "$dir" "$work/$name.log"; then
    result=SURVIVED
    survivors=$((survivors + 1))
    why="-"
  elif grep -q -E 'make: exit status|go build tabla: ' "$work/$name.log"; then
    result="NO BUILD"
    survivors=$((survivors + 1))
    why=$(grep -m1 -E 'error' "$work/$name.log" | cut -c1-120)
  else
    result=caught
    why=$(first_failure "$work/$name.log")
  fi
  printf '| %-15s | %-42s | %-6s | %s (%d s) |\n' "$name" "$what" "$result" "$why" $((SECONDS - start))
done
[ "$survivors" -eq 0 ]
