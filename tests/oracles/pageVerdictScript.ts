/**
 * The entry of the classic script that {@link browserVerdictScript} builds:
 * it puts the page's verdicts where a browser test can call them.
 */
import { pageVerdicts, type Verdict, type VerdictCase } from './pageVerdict';

declare global {
  var __vigilVerdicts: (cases: readonly VerdictCase[]) => Verdict[];
}

globalThis.__vigilVerdicts = pageVerdicts;
