//! `rulebook lsp`: a language server for rules text over stdio (LSP, JSON-RPC), on rust-analyzer's
//! `lsp-server`. It answers with the checker's own diagnostics for the whole folder as documents
//! open and change (an open document's unsaved text over the disk's), and:
//! - `documentSymbol`: the outline of a file;
//! - `definition` and `hover`: for a name, its declaration and what it is (a table's columns, a
//!   record's fields, a resolver's inputs and outputs; a quoted key, its row); on the dice of a
//!   `roll`, their exact distribution (`dice`);
//! - `references` and `prepareRename`/`rename`: every use of a resolver, table, column, enum,
//!   variant, record, field, type, constant or option across the files of its system (`refs`),
//!   and the edit that renames them all, refused with a reason (`rename`);
//! - `completion`: what may be written where the cursor is, in text that does not parse yet
//!   (`complete`);
//! - `formatting`: the document laid out as `rulebook fmt` lays it out, as one edit.
//!
//! `world` holds the folder and its `Analysis` (syntax, checked program, declarations from
//! `symbols`, uses from `refs`), made when a request needs it and kept until a change; `text`
//! converts positions, spans and URIs. Every request is answered, a malformed one with an error:
//! the server never stops on what an editor sends, only on `shutdown` and `exit`.
mod complete;
mod dice;
mod refs;
mod rename;
mod symbols;
mod text;
mod world;

use super::CliError;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument, PublishDiagnostics};
use lsp_types::request::{
    Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest, PrepareRenameRequest, References, Rename,
};
use lsp_types::{
    DocumentSymbolResponse, GotoDefinitionResponse, Hover, HoverContents, HoverProviderCapability, InitializeParams, Location,
    MarkupContent, MarkupKind, OneOf, Position, PublishDiagnosticsParams, RenameOptions, ServerCapabilities, TextDocumentSyncCapability,
    TextDocumentSyncKind, Uri,
};
use rename::Refusal;
use serde_json::Value;
use std::path::{Path, PathBuf};
use symbols::Decl;
use text::path_of;
use world::{Analysis, World};

/// Runs the server on stdin and stdout until the editor says `exit`. `rules`: the rules folder;
/// else the workspace's `rules-src/` if it has one, else the workspace folder itself.
pub fn run(rules: Option<&Path>) -> Result<(), CliError> {
    let (connection, io) = Connection::stdio();
    let served = serve(&connection, rules);
    drop(connection);
    let joined = io.join();
    served.and(joined.map_err(|e| CliError {
        message: format!("language server: {e}"),
        code: 1,
    }))
}

fn serve(connection: &Connection, rules: Option<&Path>) -> Result<(), CliError> {
    let failed = |e: &dyn std::fmt::Display| CliError {
        message: format!("language server: {e}"),
        code: 1,
    };
    let caps = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        completion_provider: Some(lsp_types::CompletionOptions {
            trigger_characters: Some(vec![".".to_string(), "\"".to_string()]),
            ..Default::default()
        }),
        references_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        ..Default::default()
    };
    let caps = serde_json::to_value(caps).map_err(|e| failed(&e))?;
    let init = connection.initialize(caps).map_err(|e| {
        if e.channel_is_disconnected() {
            failed(&"the editor closed the connection before `initialize`")
        } else {
            failed(&e)
        }
    })?;
    let params: InitializeParams = serde_json::from_value(init).unwrap_or_default();
    let mut world = World::new(rules.map(Path::to_path_buf).unwrap_or_else(|| workspace_rules(&params)));
    for msg in &connection.receiver {
        match msg {
            Message::Request(req) => {
                if connection.handle_shutdown(&req).map_err(|e| failed(&e))? {
                    return Ok(());
                }
                let resp = answer(&mut world, req);
                connection.sender.send(Message::Response(resp)).map_err(|e| failed(&e))?;
            }
            Message::Notification(n) => {
                if changed(&mut world, n) {
                    world.forget();
                    publish(connection, &world).map_err(|e| failed(&e))?;
                }
            }
            Message::Response(_) => {}
        }
    }
    Ok(())
}

/// The rules folder of the workspace the editor opened.
fn workspace_rules(params: &InitializeParams) -> PathBuf {
    let folder = params
        .workspace_folders
        .as_ref()
        .and_then(|f| f.first())
        .and_then(|f| path_of(&f.uri))
        .or_else(|| {
            #[expect(deprecated, reason = "editors that send no workspace folders send the root URI")]
            params.root_uri.as_ref().and_then(path_of)
        })
        .unwrap_or_else(|| PathBuf::from("."));
    let inside = folder.join("rules-src");
    if inside.is_dir() {
        inside
    } else {
        folder
    }
}

/// A document opened, changed, saved or closed: the world takes it in. Does it change what the
/// checker says?
fn changed(world: &mut World, n: Notification) -> bool {
    use lsp_types::notification::Notification as _;
    match n.method.as_str() {
        DidOpenTextDocument::METHOD => match serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(n.params) {
            Ok(p) => path_of(&p.text_document.uri)
                .map(|path| world.open.insert(path, p.text_document.text))
                .is_some(),
            Err(_) => false,
        },
        DidChangeTextDocument::METHOD => match serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(n.params) {
            // Full sync: the last change is the whole text.
            Ok(p) => match (path_of(&p.text_document.uri), p.content_changes.into_iter().last()) {
                (Some(path), Some(c)) => {
                    world.before_change(&path);
                    world.open.insert(path, c.text);
                    true
                }
                _ => false,
            },
            Err(_) => false,
        },
        DidCloseTextDocument::METHOD => match serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params) {
            Ok(p) => path_of(&p.text_document.uri).map(|path| world.open.remove(&path)).is_some(),
            Err(_) => false,
        },
        DidSaveTextDocument::METHOD => true,
        _ => false,
    }
}

/// The diagnostics of every file of the folder, a clean file's as an empty list.
fn publish(connection: &Connection, world: &World) -> Result<(), String> {
    use lsp_types::notification::Notification as _;
    for (path, diagnostics) in world.diagnostics() {
        let Some(uri) = text::uri_of(&path) else { continue };
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version: None,
        };
        let note = Notification::new(PublishDiagnostics::METHOD.to_string(), params);
        connection.sender.send(Message::Notification(note)).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The answer to one request: a result, or an error saying what was wrong with it.
fn answer(world: &mut World, req: Request) -> Response {
    let id = req.id.clone();
    match result(world, req) {
        Ok(v) => Response::new_ok(id, v),
        Err((code, e)) => Response::new_err(id, code as i32, e),
    }
}

fn params<P: serde::de::DeserializeOwned>(v: Value) -> Result<P, Refusal> {
    serde_json::from_value(v).map_err(|e| (ErrorCode::InvalidParams, format!("malformed parameters: {e}")))
}

fn json<T: serde::Serialize>(t: T) -> Result<Value, Refusal> {
    serde_json::to_value(t).map_err(|e| (ErrorCode::InternalError, e.to_string()))
}

fn result(world: &mut World, req: Request) -> Result<Value, Refusal> {
    use lsp_types::request::Request as _;
    match req.method.as_str() {
        HoverRequest::METHOD => {
            let p: lsp_types::HoverParams = params(req.params)?;
            json(hover(world, &p.text_document_position_params))
        }
        GotoDefinition::METHOD => {
            let p: lsp_types::GotoDefinitionParams = params(req.params)?;
            json(definition(world, &p.text_document_position_params))
        }
        Completion::METHOD => {
            let p: lsp_types::CompletionParams = params(req.params)?;
            json(completion(world, &p.text_document_position))
        }
        DocumentSymbolRequest::METHOD => {
            let p: lsp_types::DocumentSymbolParams = params(req.params)?;
            json(outline(world, &p.text_document.uri))
        }
        References::METHOD => {
            let p: lsp_types::ReferenceParams = params(req.params)?;
            let at = &p.text_document_position;
            let a = world.analysis();
            let found: Vec<Location> = path_of(&at.text_document.uri)
                .map(|path| rename::references(&a, &path, at.position, p.context.include_declaration))
                .unwrap_or_default();
            json(found)
        }
        PrepareRenameRequest::METHOD => {
            let p: lsp_types::TextDocumentPositionParams = params(req.params)?;
            let (a, path) = (world.analysis(), in_folder(&p.text_document.uri)?);
            json(rename::prepare(&a, &path, p.position)?)
        }
        Rename::METHOD => {
            let p: lsp_types::RenameParams = params(req.params)?;
            let at = &p.text_document_position;
            let (a, path) = (world.analysis(), in_folder(&at.text_document.uri)?);
            rename::rename(&a, &path, at.position, &p.new_name)
        }
        Formatting::METHOD => {
            let p: lsp_types::DocumentFormattingParams = params(req.params)?;
            json(formatting(world, &p.text_document.uri)?)
        }
        other => Err((ErrorCode::MethodNotFound, format!("`{other}` is not answered by this server"))),
    }
}

/// The path of a `file:` URI, or the error that says it is not one.
fn in_folder(uri: &Uri) -> Result<PathBuf, Refusal> {
    path_of(uri).ok_or_else(|| {
        (
            ErrorCode::InvalidParams,
            format!("`{}` is not a file of the rules folder", uri.as_str()),
        )
    })
}

/// The declaration the name at `pos` stands for: by the uses the analysis found, else (in quotes)
/// a table's key, else by its name alone.
fn declaration<'a>(a: &'a Analysis, path: &Path, pos: Position) -> Option<&'a Decl> {
    if let Some(o) = rename::occurrence_at(a, path, pos) {
        let t = &o.target;
        let path_system = a.paths.get(o.file).and_then(|p| p.parent());
        return a.decls.iter().find(|d| {
            refs::target_kind(d.kind) == Some(t.kind) && d.name == t.name && d.owner == t.owner && d.path.parent() == path_system
        });
    }
    let text = a.texts.get(a.file_of(path)?)?;
    if let Some(quoted) = text::string_at(text, pos) {
        return symbols::find_key(&a.decls, path, &quoted);
    }
    symbols::find_by_name(&a.decls, path, &text::word_at(text, pos)?)
}

fn hover(world: &mut World, at: &lsp_types::TextDocumentPositionParams) -> Option<Hover> {
    let path = path_of(&at.text_document.uri)?;
    let a = world.analysis();
    let text = a.texts.get(a.file_of(&path)?)?;
    let offset = text::offset_of(text, at.position)?;
    let value = match dice::hover(&a, &path, offset) {
        Some(v) => v,
        None => symbols::hover_text(declaration(&a, &path, at.position)?),
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: None,
    })
}

fn definition(world: &mut World, at: &lsp_types::TextDocumentPositionParams) -> Option<GotoDefinitionResponse> {
    let path = path_of(&at.text_document.uri)?;
    let a = world.analysis();
    let d = declaration(&a, &path, at.position)?;
    a.location(d.text_of_file, d.span).map(GotoDefinitionResponse::Scalar)
}

fn outline(world: &mut World, uri: &lsp_types::Uri) -> Option<DocumentSymbolResponse> {
    let path = path_of(uri)?;
    let a = world.analysis();
    Some(DocumentSymbolResponse::Nested(symbols::outline(&a.decls, &a.texts, &path)))
}

/// The document laid out by `rulebook fmt`'s formatter: one edit that replaces the whole text, or
/// none when it is laid out already; refused when the text does not parse (its diagnostics say why).
fn formatting(world: &World, uri: &Uri) -> Result<Vec<lsp_types::TextEdit>, Refusal> {
    let path = in_folder(uri)?;
    let Some(now) = world.open.get(&path).cloned().or_else(|| std::fs::read_to_string(&path).ok()) else {
        return Err((
            ErrorCode::InvalidParams,
            format!("`{}` is not open and cannot be read", uri.as_str()),
        ));
    };
    let laid = rulebook_compiler::fmt::format(0, &now).map_err(|d| {
        let why = d.first().map_or_else(String::new, |d| format!(": {}", d.message));
        (ErrorCode::RequestFailed, format!("cannot lay the file out, it does not parse{why}"))
    })?;
    if laid == now {
        return Ok(Vec::new());
    }
    let end = text::position(&now, now.len());
    Ok(vec![lsp_types::TextEdit {
        range: lsp_types::Range::new(Position::new(0, 0), end),
        new_text: laid,
    }])
}

/// What may be written at the cursor (see `complete`): the text of now for where it is, the last
/// text of the file that parsed for the names and types.
fn completion(world: &mut World, at: &lsp_types::TextDocumentPositionParams) -> Option<lsp_types::CompletionResponse> {
    let path = path_of(&at.text_document.uri)?;
    let now = world.open.get(&path).cloned().or_else(|| std::fs::read_to_string(&path).ok())?;
    let a = world.last_parsed(&path);
    Some(lsp_types::CompletionResponse::Array(complete::completions(
        a.as_deref(),
        &now,
        &path,
        at.position,
    )))
}
