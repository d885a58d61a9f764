/**
 * A cell's classification scores, from each scored answer's predicted and true label, through the
 * scikit-learn-checked classificationScores (domain/metrics/classification.ts):
 * - `accuracy`: correct answers over all answers; an unparseable answer is a wrong one;
 * - binary sets (clone, defect): `f1`, the F1 of the positive class ("1": a clone, a defect), as
 *   CodeXGLUE reports them; and `f1_macro`, bigcode's prompted tasks' "F1(macro)", where an
 *   unparseable answer ("-1") is a class of its own;
 * - the seven-class complexity set: `f1_macro`, the mean F1 over the classes seen among the true or
 *   predicted labels, "-1" left out (so an unparseable answer only costs its true class recall);
 * - `unparseable`: how many answers named no label (also in the rates above, as wrong answers).
 */
import { classificationScores } from '../../metrics/classification.js';
import { TASK_SPECS, UNPARSEABLE, type ClassificationTask } from './tasks.js';

export interface ClassificationCellScores {
  answers: number;
  accuracy: number;
  /** Binary sets: F1 of the positive class. */
  f1?: number;
  f1_macro: number;
  unparseable: number;
}

export function classificationCellScores(
  task: ClassificationTask,
  pairs: ReadonlyArray<{ prediction: string; reference: string }>,
): ClassificationCellScores {
  const predictions = pairs.map((p) => p.prediction);
  const references = pairs.map((p) => p.reference);
  const scores = classificationScores(predictions, references);
  const unparseable = predictions.filter((p) => p === UNPARSEABLE).length;
  const positive = TASK_SPECS[task].positive;
  if (positive !== null) {
    return { answers: pairs.length, accuracy: scores.accuracy, f1: scores.f1_by_label[positive] ?? 0, f1_macro: scores.f1_macro, unparseable };
  }
  const classes = Object.keys(scores.f1_by_label).filter((l) => l !== UNPARSEABLE);
  const macro = classes.length === 0 ? 0 : classes.reduce((sum, l) => sum + scores.f1_by_label[l]!, 0) / classes.length;
  return { answers: pairs.length, accuracy: scores.accuracy, f1_macro: macro, unparseable };
}
