#!/usr/bin/env bash
# mutate.sh: build firmware mutants (each a one-line change to the reference
# firmware that breaks it) and check that the tests CI runs catch every one;
# the unmutated firmware must pass them first. The suites, in this order
# (a mutant killed by one is not run through the next, unless
# MUTATE_ALL_SUITES=1):
#
#   host     make host-test: test_host, test_host_same, test_compact (what
#            TestFirmwareHostTests runs)
#   driver   TestHILDriver: the serial driver on every board's firmware,
#            the Arduino sketch's builds included
#   games    TestHIL: the daemon plays every script (Mega, Uno, RP2040)
#
#   firmware-protocol/hil/mutate.sh                  every mutant
#   firmware-protocol/hil/mutate.sh no_heartbeat     only the mutants named
#   MUTATE_SUITES="driver games" firmware-protocol/hil/mutate.sh   the HIL only
#
# Needs what the tests need (make gcc gcc-avr avr-libc binutils-avr
# libsimavr-dev gcc-arm-none-eabi nodejs arduino-builder arduino-core-avr,
# npm ci --prefix firmware-protocol/hil/rp2040). The mutants are built from
# a copy of ../firmware in a temporary directory (TABLA_HIL_FIRMWARE for the
# HIL); the tree is never changed. Prints a table and "killed K/N"; exits 1
# if a mutant survives or the baseline fails.
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$PATH:/usr/local/go/bin" CI="${CI:-true}"
suites="${MUTATE_SUITES:-host driver games}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
vectors=$(cd ../testdata && pwd)/vectors.txt

# name | file | sed expression (must change exactly one line) | what it breaks
mutants=(
  # The five of issue 40's mutation study.
  'crc_rx_ignored|tabla_proto.c|s/} else if (tabla_crc16(rx->buf, (size_t)(rx->len - TABLA_CRC_LEN)) !=/} else if (0 \&\& tabla_crc16(rx->buf, (size_t)(rx->len - TABLA_CRC_LEN)) !=/|the CRC of received frames never checked'
  'no_heartbeat|tabla_fw.c|s/send(fw, tabla_build_heartbeat(/(void)(tabla_build_heartbeat(/|heartbeats built, never sent'
  'debounce_plus1|tabla_fw.c|s/    if (n >= need) {/    if (n > need) {/|a cell change reported one scan late'
  'cellchange_index_u8|tabla_fw.c|s/tabla_put_u16(\&w, i);/tabla_put_u16(\&w, (uint8_t)i);/|CellChange cell index truncated to 8 bits'
  'cell_index_cast_u8|tabla_fw.c|s/uint8_t raw = (uint8_t)(hal_read_cell(i) \&/uint8_t raw = (uint8_t)(hal_read_cell((uint8_t)i) \&/|cells past 255 read the sensor of cell i mod 256'
  # Earlier ones.
  'crc-cellchange|tabla_proto.c|s/tabla_put_u16(w, crc);/tabla_put_u16(w, (uint16_t)(w->buf[0] == 3u ? crc ^ 0x0004u : crc));/|one CRC bit flipped in every CellChange'
  'drop-ack|tabla_fw.c|s/send_ack(fw, fw->ack_queue\[k\].seq, fw->ack_queue\[k\].type);/if (fw->ack_queue[k].type != TABLA_T_LED_SET) send_ack(fw, fw->ack_queue[k].seq, fw->ack_queue[k].type);/|no Ack for LEDSet'
  'ack-wrong-seq|tabla_fw.c|s/send_ack(fw, fw->ack_queue\[k\].seq, fw->ack_queue\[k\].type);/send_ack(fw, (uint16_t)(fw->ack_queue[k].seq + 1u), fw->ack_queue[k].type);/|Acks name the next seq'
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

# run_suite SUITE DIR LOG: one suite on the firmware in DIR; 0 if it passed.
run_suite() {
  case "$1" in
  host) make --no-print-directory -C "$2" host-test BUILD="$2/build-host" VECTORS="$vectors" >"$3" 2>&1 ;;
  driver) TABLA_HIL_FIRMWARE="$2" go test -count=1 -run '^TestHILDriver$' . >"$3" 2>&1 ;;
  games) TABLA_HIL_FIRMWARE="$2" go test -count=1 -run '^TestHIL$' . >"$3" 2>&1 ;;
  *) echo "unknown suite $1" >"$3"; return 2 ;;
  esac
}

# first_failure LOG: the first line saying why the test failed.
first_failure() {
  grep -m1 -E '_test\.go:[0-9]+: |^FAIL [a-z]' "$1" | sed -E 's/^[[:space:]]+//' | cut -c1-140 || true
}

cp -r ../firmware "$work/base"
rm -rf "$work/base/build"
all_start=$SECONDS
for suite in $suites; do
  start=$SECONDS
  if ! run_suite "$suite" "$work/base" "$work/base-$suite.log"; then
    echo "baseline: the unmutated firmware fails $suite:"
    tail -30 "$work/base-$suite.log"
    exit 1
  fi
  echo "baseline: the unmutated firmware passes $suite ($((SECONDS - start)) s)"
done
echo
printf '| %-19s | %-48s | %-8s | %s |\n' mutant change result 'killed by: first failure reported (time)'
printf '|%s|%s|%s|%s|\n' "---------------------" "--------------------------------------------------" "----------" "------------------------"
killed=0
total=0
for m in "${mutants[@]}"; do
  IFS='|' read -r name file expr what <<<"$m"
  if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
  total=$((total + 1))
  dir="$work/$name"
  cp -r "$work/base" "$dir"
  rm -rf "$dir/build-host"
  sed -i "$expr" "$dir/$file"
  if [ "$(diff "$work/base/$file" "$dir/$file" | grep -c '^>')" != 1 ]; then
    echo "mutant $name: the expression did not change exactly one line of $file (has the firmware changed?)"
    exit 1
  fi
  start=$SECONDS
  by=()
  result=SURVIVED
  for suite in $suites; do
    log="$work/$name-$suite.log"
    if run_suite "$suite" "$dir" "$log"; then
      continue
    fi
    if grep -q -E 'make: exit status|go build tabla: |arduino-builder .*exit status|error:' "$log" &&
      ! grep -q -E '_test\.go:[0-9]+: |^FAIL [a-z]' "$log"; then
      result="NO BUILD"
      by+=("$suite: $(grep -m1 -E 'error' "$log" | cut -c1-100)")
      break
    fi
    result=killed
    by+=("$suite: $(first_failure "$log")")
    [ "${MUTATE_ALL_SUITES:-}" = 1 ] || break
  done
  [ "$result" = killed ] && killed=$((killed + 1))
  [ ${#by[@]} -gt 0 ] || by=("-")
  printf '| %-19s | %-48s | %-8s | %s (%d s) |\n' "$name" "$what" "$result" "$(IFS=';'; echo "${by[*]}")" $((SECONDS - start))
done
echo
echo "killed $killed/$total (suites: $suites; $((SECONDS - all_start)) s)"
[ "$killed" -eq "$total" ]
