/**
 * The oracle table (test/helpers/oracle-table.ts) against the nut driver: what a real
 * application receives for every row, or the refusal the nut driver must answer.
 */
import t from 'tap'
import { runOracleTable } from './helpers/oracle-table.ts'

runOracleTable(t, 'nut')
