/** Request bodies for chat models, shared by the methods that talk to the model in several steps. */
import type { ChatBody, ChatMessage } from '../llm/request.js';

export interface ChatSampling {
  model: string;
  temperature: number;
  top_p: number;
  max_tokens: number;
  /** Base seed; call i of a step sends base + i, so candidates differ reproducibly. */
  seed?: number;
}

export function chatBody(sampling: ChatSampling, messages: ChatMessage[], index: number, choices = 1): ChatBody {
  return {
    model: sampling.model,
    temperature: sampling.temperature,
    top_p: sampling.top_p,
    max_tokens: sampling.max_tokens,
    ...(sampling.seed !== undefined ? { seed: sampling.seed + index } : {}),
    ...(choices > 1 ? { n: choices } : {}),
    messages,
  };
}

/** Text cut to `max` characters, saying how much was cut (the model should know output is missing). */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n... [${text.length - max} more characters cut]`;
}

export function pythonBlock(code: string): string {
  return '```python\n' + code.replace(/\s+$/, '') + '\n```';
}
