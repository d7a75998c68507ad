/**
 * The oracle table (test/helpers/oracle-table.ts) against the xdotool driver: what a real
 * application receives for every row, or the refusal the xdotool driver must answer.
 */
import t from 'tap'
import { runOracleTable } from './helpers/oracle-table.ts'

runOracleTable(t, 'xdotool')
