-- Server answers turned into buffer lines and quickfix items. Pure: a result goes in, lines
-- come out, so what a scratch buffer shows can be checked against the server's own answer.
local M = {}

--- `text` as lines, without the empty string a trailing newline leaves behind.
---@param text string?
---@return string[]
function M.lines(text)
  if text == nil or text == vim.NIL or text == "" then
    return {}
  end
  local out = vim.split(text, "\n", { plain = true })
  if out[#out] == "" then
    out[#out] = nil
  end
  return out
end

local function present(v)
  return v ~= nil and v ~= vim.NIL and v ~= ""
end

--- `path::symbol`, `path`, or nil for items that name no file (the task, the digest).
function M.where(item)
  if not present(item.path) then
    return nil
  end
  if present(item.symbol) then
    return item.path .. "::" .. item.symbol
  end
  return item.path
end

-- A fence longer than any run of backticks in the text, so a Markdown file in the window
-- (or a docstring quoting one) cannot close it early.
local function fence_for(lines)
  local longest = 2
  for _, l in ipairs(lines) do
    for run in l:gmatch("`+") do
      longest = math.max(longest, #run)
    end
  end
  return string.rep("`", longest + 1)
end

-- The language a fenced block is tagged with, from the item's path (markdown's fenced
-- highlighting reads it); nothing when the item names no file or nvim cannot tell.
local function lang_of(path)
  if not present(path) then
    return ""
  end
  local ok, ft = pcall(vim.filetype.match, { filename = path })
  return ok and ft or ""
end

--- One item's text inside a fence, appended to `out`.
local function fenced(out, text, path)
  local body = M.lines(text)
  local fence = fence_for(body)
  out[#out + 1] = fence .. lang_of(path)
  vim.list_extend(out, body)
  out[#out + 1] = fence
end

local function notes(out, result)
  local list = type(result.notes) == "table" and result.notes or {}
  if result.complete == false or #list > 0 then
    out[#out + 1] = ""
    out[#out + 1] = "## Notes"
    if result.complete == false then
      out[#out + 1] = "- incomplete: not every call site and test could be found"
    end
    for _, n in ipairs(list) do
      out[#out + 1] = "- " .. n:gsub("\n", " ")
    end
  end
end

--- The title of a window: its target and its size against the ceiling.
function M.window_title(result)
  return ("# %s: %d of %d tokens"):format(result.target, result.tokenCount, result.ceiling)
end

--- A ctx/construct result (DecisionContext) as the lines of the window buffer.
---@return string[]
function M.window(result)
  local out = { M.window_title(result) }
  if present(result.intent) then
    out[#out + 1] = "intent: " .. result.intent
  end
  if result.flagged then
    out[#out + 1] = "flagged: the core alone exceeds the ceiling and was cut"
  end
  for _, item in ipairs(result.window or {}) do
    local parts = { item.id, item.role, item.rendering, ("%d tokens"):format(item.tokens) }
    local where = M.where(item)
    if where then
      parts[#parts + 1] = where
    end
    out[#out + 1] = ""
    out[#out + 1] = "## " .. table.concat(parts, " · ")
    fenced(out, item.text, item.path)
  end
  local omitted = result.omitted or {}
  out[#out + 1] = ""
  out[#out + 1] = ("## Omitted (%d)"):format(#omitted)
  for _, o in ipairs(omitted) do
    local where = M.where(o) or ""
    if present(o.startLine) then
      where = ("%s lines %d-%d"):format(where, o.startLine, o.endLine or o.startLine)
    end
    out[#out + 1] = ("- %s %s %s: %s"):format(o.id, o.kind, vim.trim(where), o.reason)
  end
  notes(out, result)
  return out
end

--- A ctx/skeleton result as lines.
function M.skeleton(result)
  local title = ("# skeleton: %s (%s, %s): %d tokens"):format(
    result.path, result.mode, result.reason, result.tokens)
  if present(result.target) then
    title = title .. ", target " .. result.target
  end
  local out = { title, "" }
  fenced(out, result.text, result.path)
  notes(out, { notes = result.notes })
  return out
end

--- A ctx/readSymbol result as lines.
function M.symbol(result)
  local out = {
    ("# %s::%s (%s): %d tokens"):format(result.path, result.symbol, result.kind, result.tokens),
    "",
  }
  fenced(out, result.text, result.path)
  notes(out, { notes = result.notes })
  return out
end

local function first_code_line(text)
  -- the site's numbered lines: the call's own line is the one the range starts on, but any
  -- line is better than none; keep the code after the `NN | ` prefix
  for _, l in ipairs(M.lines(text)) do
    local code = l:match("^%s*%d+ | (.*)$")
    if code then
      return vim.trim(code)
    end
  end
  return ""
end

local function site_text(site, prefix, line)
  local enclosing = present(site.enclosing) and site.enclosing or "(module level)"
  local text = ("%s%s (%s)"):format(prefix, enclosing, site.evidence)
  local code = line ~= "" and line or first_code_line(site.text)
  if code ~= "" then
    text = text .. ": " .. code
  end
  return text
end

--- A ctx/references result as quickfix items: proven call sites first (file by file, in
--- line order), then the candidates, typed W, as they are not proven.
---@param encoding string the client's position encoding, to turn characters into columns
function M.references(result, encoding)
  local items = {}
  for _, list in ipairs({
    { sites = result.references or {}, prefix = "", type = "" },
    { sites = result.candidates or {}, prefix = "candidate: ", type = "W" },
  }) do
    for _, item in ipairs(vim.lsp.util.locations_to_items(list.sites, encoding)) do
      local site = item.user_data
      item.text = site_text(site, list.prefix, vim.trim(item.text or ""))
      item.type = list.type
      items[#items + 1] = item
    end
  end
  return items
end

--- The quickfix title for a ctx/references result.
function M.references_title(result)
  return ("ctxls: %d call sites of %s::%s%s"):format(
    #(result.references or {}), result.path, result.symbol,
    result.complete and " (complete)" or " (may be incomplete)")
end

return M
